#!/usr/bin/env bash
# fetch-nsys.sh — get a real NVIDIA `nsys` CLI from Debian's non-free archive into a
# per-user cache, without installing anything system-wide, and print its absolute path.
#
#   usage: ci/fetch-nsys.sh [2023.4|2022.4]        (default 2023.4)
#
# stdout: exactly one line, the absolute path of a runnable `nsys` (on success, exit 0).
# stderr: progress and, on failure, one "fetch-nsys: error: ..." line (exit 1; usage: exit 2).
#
# Cache: ${NSYS_GATE_CACHE_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/nsys-gate}/nsys-<version>/
#   bin/nsys      relative symlink to the real binary (no wrapper needed, see below)
#   root/         the .deb(s) unpacked with `dpkg -x` (Debian's /usr/lib/... layout)
#   apt/          the private sources file and apt lists used to fetch them
#   MANIFEST      package, version, sha256 and source of every .deb unpacked
# A second run finds bin/nsys, checks that `nsys --version` works, and prints it: no network.
#
# Why only nsight-systems-target: it holds the whole CLI (nsys, the stats report scripts and
# the export code), and nsys carries its own Python 3.8, so `nsys stats` and `nsys export`
# work with nothing else. Its binary needs only libc, libelf.so.1 and libz.so.1 from the host
# and loads the rest through RPATH=$ORIGIN. Its declared Depends (python3, libcuda1 = the
# NVIDIA driver, libucx0, ...) are for profiling on a GPU machine, so they are NOT fetched.
# The package `nsight-systems` (150 MB: Qt GUI, QdstrmImporter, the /usr/bin/nsys symlink)
# is not needed for stats/export and is not fetched either.
#
# Environment:
#   NSYS_GATE_CACHE_ROOT   cache root (see above)
#   NSYS_GATE_APT_KEYRING  keyring that verifies the archive
#                          (default /usr/share/keyrings/debian-archive-keyring.gpg)
set -euo pipefail

readonly prog=fetch-nsys
readonly package=nsight-systems-target
readonly default_keyring=/usr/share/keyrings/debian-archive-keyring.gpg

say() { printf '%s: %s\n' "$prog" "$*" >&2; }
die() { printf '%s: error: %s\n' "$prog" "$*" >&2; exit 1; }

# --- which nsys ---------------------------------------------------------------------------
version=${1:-2023.4}
case $version in
    2023.4) suite=trixie ;;    # Debian 13 non-free: nsight-systems-target 2023.4.4.54~12.4.1
    2022.4) suite=bookworm ;;  # Debian 12 non-free: nsight-systems-target 2022.4.2.1~11.8.0
    -h|--help) echo "usage: $0 [2023.4|2022.4]" >&2; exit 0 ;;
    *) echo "usage: $0 [2023.4|2022.4]  (unknown version '$version')" >&2; exit 2 ;;
esac
[[ $# -le 1 ]] || { echo "usage: $0 [2023.4|2022.4]" >&2; exit 2; }

# --- cache paths --------------------------------------------------------------------------
if [[ -z ${NSYS_GATE_CACHE_ROOT:-} && -z ${XDG_CACHE_HOME:-} && -z ${HOME:-} ]]; then
    die "none of NSYS_GATE_CACHE_ROOT, XDG_CACHE_HOME, HOME is set: no place for the cache"
fi
cache_root=${NSYS_GATE_CACHE_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/nsys-gate}
mkdir -p -- "$cache_root" || die "cannot create cache root $cache_root"
cache_root=$(cd -- "$cache_root" && pwd -P)   # absolute, so the printed path is too
dest=$cache_root/nsys-$version
nsys_link=$dest/bin/nsys

# True when $1 is an nsys that starts. stdin from /dev/null: nsys never needs a tty.
nsys_runs() { [[ -x $1 ]] && "$1" --version </dev/null >/dev/null 2>&1; }

# Fast path, before any lock: the final directory only ever appears by an atomic rename of
# a complete, verified tree, so if bin/nsys runs it is safe to use.
if nsys_runs "$nsys_link"; then
    printf '%s\n' "$nsys_link"
    exit 0
fi

# --- serialise the slow path --------------------------------------------------------------
for tool in apt-get apt-cache apt-config dpkg dpkg-deb flock awk sha256sum; do
    command -v "$tool" >/dev/null || die "'$tool' not found: this script needs a Debian-like system"
done

exec 9>"$cache_root/.nsys-$version.lock" || die "cannot create lock file in $cache_root"
if ! flock -n 9; then
    say "another fetch of nsys $version is running; waiting for it (up to 15 min)"
    flock -w 900 9 || die "timed out waiting for the lock $cache_root/.nsys-$version.lock"
fi
# The other holder may have finished the job while we waited.
if nsys_runs "$nsys_link"; then
    printf '%s\n' "$nsys_link"
    exit 0
fi
if [[ -e $dest ]]; then
    say "cached $dest is broken (its nsys does not run); fetching it again"
    rm -rf -- "$dest"
fi
# Leftovers of runs that were killed: only lock holders create them, and we hold the lock.
rm -rf -- "$cache_root/.nsys-$version.tmp."*

# Build everything in a temp dir next to the destination (same filesystem, so the final
# rename is atomic) and remove it on any failure.
work=$cache_root/.nsys-$version.tmp.$$
trap 'rm -rf -- "$work"' EXIT
# On a signal, bash would run the EXIT trap at once while the current child (apt-get,
# dpkg-deb) keeps writing into $work. Trapping the signal makes bash wait for that child to
# end first, then exit and clean up.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p -- "$work/root" "$work/bin" "$work/apt/empty"
: >"$work/apt/status"
log=$work/apt/apt.log
started=$SECONDS

# --- the machine's own Debian archive URI -------------------------------------------------
# Read the machine's apt configuration (wherever apt-config says it lives) and take the URI
# of the first enabled "deb" entry whose Suites include the machine's own codename exactly
# (so not -security or -updates) and whose Components include main (so not a third-party
# repository that reuses the codename, such as Docker's). Nothing here names a host.
# shellcheck disable=SC1091  # a system file, read in a subshell for one variable
codename=$(. /etc/os-release 2>/dev/null && printf '%s' "${VERSION_CODENAME:-}")
[[ -n $codename ]] || die "no VERSION_CODENAME in /etc/os-release: cannot find this machine's Debian suite"
sources_list='' sources_parts=''
eval "$(apt-config shell sources_list Dir::Etc::SourceList/f sources_parts Dir::Etc::SourceParts/d)"

# deb822 *.sources: stanzas separated by blank lines; continuation lines start with blanks.
find_uri_deb822() {
    awk -v want="$codename" '
        function has(list, word,   a, n, i) {
            n = split(list, a, /[ \t]+/)
            for (i = 1; i <= n; i++) if (a[i] == word) return 1
            return 0
        }
        function flush(   u) {
            en = f["enabled"]; gsub(/[ \t]/, "", en)
            if (!done && f["uris"] != "" && tolower(en) != "no" && has(f["types"], "deb") \
                && has(f["suites"], want) && has(f["components"], "main")) {
                split(f["uris"], u, /[ \t]+/); print (u[1] != "" ? u[1] : u[2]); done = 1
            }
            delete f; key = ""
        }
        /^#/          { next }
        /^[ \t]*$/    { flush(); next }
        /^[ \t]/      { if (key != "") f[key] = f[key] " " $0; next }
        {
            i = index($0, ":"); if (i == 0) next
            key = tolower(substr($0, 1, i - 1)); f[key] = substr($0, i + 1)
        }
        END { flush() }
    ' "$1"
}
# one-line *.list: deb [options] URI suite component...
find_uri_oneline() {
    awk -v want="$codename" '
        /^[ \t]*deb[ \t]/ {
            line = $0; sub(/#.*/, "", line); gsub(/\[[^]]*\]/, " ", line)
            n = split(line, a, /[ \t]+/); j = (a[1] == "") ? 2 : 1   # a[j] == "deb"
            if (a[j + 2] != want) next
            for (i = j + 3; i <= n; i++) if (a[i] == "main") { print a[j + 1]; exit }
        }
    ' "$1"
}
archive_uri=
if [[ -f $sources_list ]]; then archive_uri=$(find_uri_oneline "$sources_list"); fi
if [[ -z $archive_uri && -d $sources_parts ]]; then
    for f in "$sources_parts"*; do
        case $f in
            *.sources) archive_uri=$(find_uri_deb822 "$f") ;;
            *.list) archive_uri=$(find_uri_oneline "$f") ;;
            *) continue ;;
        esac
        [[ -n $archive_uri ]] && break
    done
fi
[[ -n $archive_uri ]] || die "no enabled 'deb' entry for suite '$codename' with component main in $sources_list or $sources_parts: cannot find the Debian archive to download from"
archive_uri=${archive_uri%/}

# --- private apt --------------------------------------------------------------------------
arch=$(dpkg --print-architecture)
keyring=${NSYS_GATE_APT_KEYRING:-$default_keyring}
[[ -r $keyring ]] || die "archive keyring $keyring not readable (install debian-archive-keyring)"

# write_sources FILE SUITE COMPONENTS KEYRING
# Targets: Packages keeps apt from fetching Translation/Contents/DEP-11 files we never read.
write_sources() {
    cat >"$1" <<EOF
# Written by ci/fetch-nsys.sh from this machine's apt configuration; used only by it.
Types: deb
URIs: $archive_uri
Suites: $2
Components: $3
Architectures: $arch
Targets: Packages
Signed-By: $4
EOF
}

# run_apt STATE_DIR SOURCES_FILE apt-get|apt-cache ARGS...
# All apt state (lists, caches, locks) lives under STATE_DIR; the status file is empty
# because nothing is ever installed, so the host's dpkg database plays no part. The host's
# apt.conf.d is still read on purpose: proxies and similar site settings keep working.
run_apt() {
    local state=$1 sources=$2 cmd=$3
    shift 3
    mkdir -p -- "$state/lists/partial" "$state/cache/archives/partial"
    local opts=(
        -q
        -o "Dir::Etc::SourceList=$sources"
        -o "Dir::Etc::SourceParts=$work/apt/empty"
        -o "Dir::Etc::Preferences=$work/apt/empty/none"
        -o "Dir::Etc::PreferencesParts=$work/apt/empty"
        -o "Dir::State=$state"
        -o "Dir::State::Status=$work/apt/status"
        -o "Dir::Cache=$state/cache"
        -o "APT::Architectures=$arch"
        # Without this, apt-get update exits 0 when an index could not be fetched at all
        # (no network, 404): make every such failure an error.
        -o APT::Update::Error-Mode=any
    )
    # As root, apt downloads as user _apt, who cannot enter a cache under /root: it would
    # then fall back to root anyway, with a warning. Say so up front. Files stay verified
    # against the signed Release file either way.
    [[ $EUID -ne 0 ]] || opts+=(-o APT::Sandbox::User=root)
    "$cmd" "${opts[@]}" "$@"
}

# Print apt's own error lines under our message, so the cause (DNS, 404, key) is visible.
apt_errors() { grep -E '^E:' "$1" | head -n 4 | sed "s/^/$prog:   apt: /" >&2 || true; }

state=$work/apt/state
sources=$work/apt/nsys-gate.sources
write_sources "$sources" "$suite" non-free "$keyring"
say "fetching $package for nsys $version from $archive_uri $suite/non-free"
# apt's words for "no key in this keyring verifies that Release file".
signature_trouble='NO_PUBKEY|EXPKEYSIG|KEYEXPIRED|is not signed|couldn.t be verified'
if ! run_apt "$state" "$sources" apt-get update >"$log" 2>&1; then
    if ! grep -qE "$signature_trouble" "$log"; then
        apt_errors "$log"
        die "apt-get update of $archive_uri $suite/non-free failed (no network? proxy? does the mirror carry $suite?)"
    fi
    if [[ $suite == "$codename" ]]; then
        apt_errors "$log"
        die "keyring $keyring cannot verify $archive_uri $suite (is debian-archive-keyring installed and current?)"
    fi
    # The keyring verifies this machine's own suite but not $suite. (Today trixie is signed
    # with the bookworm key as well, so any bookworm keyring works; that ends when the
    # archive stops double-signing. bookworm's debian-archive-keyring has its own trixie keys
    # only since 2023.3+deb12u2, April 2025.) Take the debian-archive-keyring package of the
    # machine's own suite: that suite's Release file verifies with the keys we trust, and it
    # pins the package's hash, so the chain of signatures stays unbroken and no
    # [trusted=yes] is needed.
    say "keyring $keyring cannot verify $suite; fetching debian-archive-keyring from $codename/main"
    own_sources=$work/apt/own-suite.sources
    own_log=$work/apt/apt-keyring.log
    write_sources "$own_sources" "$codename" main "$keyring"
    (
        mkdir -p -- "$work/apt/keyring-deb" && cd -- "$work/apt/keyring-deb" \
        && run_apt "$work/apt/own-state" "$own_sources" apt-get update \
        && run_apt "$work/apt/own-state" "$own_sources" apt-get download debian-archive-keyring
    ) >"$own_log" 2>&1 || {
        apt_errors "$own_log"
        die "cannot fetch debian-archive-keyring from $archive_uri $codename/main to verify $suite"
    }
    dpkg-deb -x "$work/apt/keyring-deb/"*.deb "$work/apt/keyring-pkg" \
        || die "cannot unpack the downloaded debian-archive-keyring"
    cp -- "$work/apt/keyring-pkg$default_keyring" "$work/apt/debian-archive-keyring.gpg" \
        || die "the downloaded debian-archive-keyring has no $default_keyring"
    rm -rf -- "$work/apt/keyring-pkg" "$work/apt/keyring-deb" "$work/apt/own-state"
    keyring=$work/apt/debian-archive-keyring.gpg
    write_sources "$sources" "$suite" non-free "$keyring"
    run_apt "$state" "$sources" apt-get update >"$log" 2>&1 || {
        apt_errors "$log"
        die "apt-get update of $archive_uri $suite/non-free failed even with $codename's current debian-archive-keyring"
    }
fi

# Pick the newest version of the package whose upstream version is the one asked for, so a
# future upload of another nsys to $suite fails loudly instead of silently changing nsys.
deb_version=$(run_apt "$state" "$sources" apt-cache madison "$package" 2>>"$log" \
    | awk -F'|' -v want="$version." '{ gsub(/[ \t]/, "", $2); if (index($2, want) == 1 && !v) v = $2 } END { print v }' || true)
if [[ -z $deb_version ]]; then
    available=$(run_apt "$state" "$sources" apt-cache madison "$package" 2>/dev/null | awk -F'|' '{ gsub(/[ \t]/, "", $2); printf " %s", $2 }' || true)
    die "$suite/non-free at $archive_uri has no $package $version.*${available:+ (it has:$available)}"
fi

# apt-get download fetches just this .deb (not its Depends) into the current directory,
# checking its hash against the signed index.
(
    mkdir -p -- "$work/apt/debs" && cd -- "$work/apt/debs" \
    && run_apt "$state" "$sources" apt-get download "$package=$deb_version"
) >>"$log" 2>&1 || { apt_errors "$log"; die "download of $package $deb_version from $archive_uri failed"; }

# --- unpack, link, verify -----------------------------------------------------------------
for deb in "$work/apt/debs/"*.deb; do
    dpkg-deb -x "$deb" "$work/root" || die "cannot unpack $deb"
    printf '%s %s %s %s %s/non-free\n' "$package" "$deb_version" \
        "$(sha256sum <"$deb" | cut -d' ' -f1)" "$archive_uri" "$suite" >>"$work/MANIFEST"
done

# The package puts the CLI at /usr/lib/<triplet>/nsight-systems/target-linux-<arch>/nsys.
# nsys finds its reports and libraries next to its own resolved path (/proc/self/exe and
# RPATH=$ORIGIN), so a symlink works anywhere and needs no environment; it is relative so
# the cache directory can be moved as a whole.
real_nsys=$(find "$work/root/usr/lib" -path '*/nsight-systems/target-linux-*/nsys' -type f 2>/dev/null | sort | head -n 1 || true)
real_nsys=${real_nsys#"$work/root/"}
[[ -n $real_nsys ]] || die "$package $deb_version contains no target-linux-*/nsys"
ln -s "../root/$real_nsys" "$work/bin/nsys"

if ! version_line=$("$work/bin/nsys" --version </dev/null 2>&1); then
    missing=$(ldd "$work/root/$real_nsys" 2>/dev/null | awk '/not found/ { printf " %s", $1 }' || true)
    die "the unpacked nsys does not run${missing:+: missing host libraries:$missing (install them, e.g. libelf1 for libelf.so.1)}: $version_line"
fi
case $version_line in
    *" version $version."*) ;;
    *) die "the unpacked nsys reports '$version_line', not $version.*" ;;
esac

# Keep the sources file and lists (small) as a record; drop the .debs and apt's binary caches.
rm -rf -- "$work/apt/debs" "$state/cache"
# A keyring fetched above moves with the tree: make the kept sources file name its final place.
if [[ $keyring == "$work/"* ]]; then
    write_sources "$sources" "$suite" non-free "$dest/${keyring#"$work/"}"
fi

mv -T -- "$work" "$dest" || die "cannot move the new tree into $dest"
trap - EXIT
say "nsys $version ready in $((SECONDS - started))s: $version_line"
printf '%s\n' "$nsys_link"
