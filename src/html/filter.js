// The filter box: shown only when scripts run (the page is whole without
// it); hides every gate row and section whose name does not contain the text.
(function () {
    var f = document.getElementById('filter');
    if (!f)
        return;
    f.closest('p').hidden = false;
    f.addEventListener('input', function () {
        var q = f.value.toLowerCase();
        document.querySelectorAll('[data-gate]').forEach(function (e) {
            if (e.tagName.toLowerCase() === 'svg')
                return;
            e.hidden = q !== '' && e.getAttribute('data-gate').toLowerCase().indexOf(q) < 0;
        });
    });
})();
