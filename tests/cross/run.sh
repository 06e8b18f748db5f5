#!/usr/bin/env bash
# make test-cross: the compiled core cross-built for every wheel platform and tests/core run there.
#
# For each target: a Debian sysroot (mmdebstrap: python3, its headers, pytest, hypothesis) cached
# outside the repository; the checkout's Cython output (one C file per module, the same for every
# target) compiled by Debian's cross gcc against that sysroot's Python; tests/core run inside it
# (chroot) on both twins, under qemu-user through binfmt_misc or natively for i386 on x86_64; then
# the py3-none-any wheel alone in the same sysroot. Prints a table (also build/cross/table.md).
#
# Needs root (chroot, mounts, binfmt_misc) on Debian or Ubuntu; installs what is missing with
# apt-get (mmdebstrap arch-test qemu-user-static binfmt-support gcc-<triplet>). A sysroot takes
# 3-4 minutes natively and 5-10 under emulation the first time (BAND_CROSS_CACHE, default
# /var/cache/band-cross; delete a directory there to rebuild it); a cached run takes about two
# minutes for i386 and 4-15 per emulated target (see the README's platform table).
#
#   TARGETS="i386 s390x"   the targets to run (default: all of them)
#   BAND_CROSS_CACHE=DIR   where the sysroots live
#   CROSS_SUITES=trixie    the Debian suites to run (default: the table below)
#   CROSS_CFLAGS=...       replaces the optimisation/precision flags (to reproduce a bug)
set -euo pipefail
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
PY="${PY:-$REPO/.venv/bin/python}"
CACHE="${BAND_CROSS_CACHE:-/var/cache/band-cross}"
WORK="${CROSS_WORK:-$REPO/build/cross}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
TARGETS="${TARGETS:-s390x aarch64 armv7l i386 ppc64le riscv64}"
# the flags CPython's own build gives extensions on Debian (-Wsign-compare among them), plus
# setup.py's -g0 and -fexcess-precision=standard
CROSS_CFLAGS="${CROSS_CFLAGS:--O2 -g0 -fwrapv -fexcess-precision=standard}"
PACKAGES=python3,python3-dev,python3-pytest,python3-hypothesis,libc6-dev

# target -> Debian architecture, GNU triplet of the cross gcc, qemu-user name, Debian suites
# (bookworm: Python 3.11, full C API; trixie: Python 3.13, the cp312-abi3 limited API)
declare -A ARCH=([s390x]=s390x [aarch64]=arm64 [armv7l]=armhf [i386]=i386 [ppc64le]=ppc64el [riscv64]=riscv64)
declare -A TRIPLET=([s390x]=s390x-linux-gnu [aarch64]=aarch64-linux-gnu [armv7l]=arm-linux-gnueabihf
    [i386]=i686-linux-gnu [ppc64le]=powerpc64le-linux-gnu [riscv64]=riscv64-linux-gnu)
declare -A QEMU=([s390x]=s390x [aarch64]=aarch64 [armv7l]=arm [i386]=i386 [ppc64le]=ppc64le [riscv64]=riscv64)
# s390x on bookworm: twice here Debian's mirror listed trixie s390x point-release packages
# (libc6 2.41-12+deb13u5, ...) that it then answered 404, so no trixie sysroot could be made
declare -A SUITES=([s390x]=bookworm [aarch64]=bookworm [armv7l]="bookworm trixie" [i386]="bookworm trixie"
    [ppc64le]=bookworm [riscv64]=trixie)

say() { printf '== %s\n' "$*" >&2; }
die() { printf 'test-cross: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (chroot, mounts and binfmt_misc); run it as root or in a root container"
for target in $TARGETS; do
    [ -n "${ARCH[$target]:-}" ] || die "unknown target $target (known: ${!ARCH[*]})"
done
[ -x "$PY" ] || die "$PY not found: run make install first"

# --- tools: install what is missing (Debian or Ubuntu) -----------------------------------------
native_i386() { [ "$(uname -m)" = x86_64 ] && [ "$1" = i386 ]; }
wanted=()
command -v mmdebstrap >/dev/null || wanted+=(mmdebstrap)
command -v arch-test >/dev/null || wanted+=(arch-test)
for target in $TARGETS; do
    command -v "${TRIPLET[$target]}-gcc" >/dev/null || wanted+=("gcc-${TRIPLET[$target]}")
    if ! native_i386 "$target"; then
        command -v "qemu-${QEMU[$target]}-static" >/dev/null || wanted+=(qemu-user-static)
        command -v update-binfmts >/dev/null || wanted+=(binfmt-support)
    fi
done
if [ ${#wanted[@]} -gt 0 ]; then
    say "apt-get install ${wanted[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        $(printf '%s\n' "${wanted[@]}" | sort -u) >/dev/null
fi
# qemu-user through binfmt_misc (the F flag: the interpreter works inside a chroot)
if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
fi
for target in $TARGETS; do
    native_i386 "$target" && continue
    name="qemu-${QEMU[$target]}"
    [ -e "/proc/sys/fs/binfmt_misc/$name" ] || update-binfmts --enable "$name" ||
        die "cannot register $name with binfmt_misc"
done

# --- the sysroots ------------------------------------------------------------------------------
sysroot() {  # target suite -> prints the cached sysroot, made first if missing
    local dir="$CACHE/${ARCH[$1]}-$2"
    if [ ! -x "$dir/usr/bin/python3" ]; then
        mkdir -p "$CACHE"
        rm -rf "$dir.tmp"
        say "mmdebstrap ${ARCH[$1]} $2 -> $dir (once; minutes)"
        local start=$SECONDS
        mmdebstrap --quiet --variant=apt --arch="${ARCH[$1]}" --include="$PACKAGES" \
            "$2" "$dir.tmp" "$MIRROR" >"$dir.log" 2>&1 || { tail -20 "$dir.log" >&2; die "mmdebstrap failed"; }
        mv "$dir.tmp" "$dir"
        say "sysroot ${ARCH[$1]} $2 made in $((SECONDS - start)) s"
    fi
    echo "$dir"
}

relative_links() {  # root : the loader links made relative (ppc64el's /usr/lib64/ld64.so.2 is
    # absolute; the cross ld follows it on the host and fails: "cannot find /lib64/ld64.so.2")
    local link target
    for link in "$1"/usr/lib64/* "$1"/usr/lib/*; do
        [ -L "$link" ] || continue
        target="$(readlink "$link")"
        case "$target" in
        /*) ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$1$target")" "$link" ;;
        esac
    done
}

in_root() {  # root command... : run inside the sysroot with /proc and /dev, in a private mount ns
    local root=$1
    shift
    unshare --mount --propagation private -- sh -c '
        root=$1; shift
        mount -t proc proc "$root/proc" && mount --rbind /dev "$root/dev" && exec chroot "$root" "$@"
    ' in_root "$root" env -i PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 "$@"
}

# --- the host side: C sources once, the pure wheel once ------------------------------------------
rm -rf "$WORK/c" "$WORK/targets" "$WORK/wheel"  # Cython misses a .pxd change of a .py source
mkdir -p "$WORK/c" "$WORK/targets" "$WORK/wheel"
say "cythonize (host)"
"$PY" "$REPO/tests/cross/cythonize.py" "$WORK/c" >"$WORK/modules.txt"
# no comparison that can meet Cython's float/int helper unreviewed (wrong on 32-bit abi3)
status=0
"$PY" "$REPO/tests/cross/float_int_sites.py" "$WORK/c" || status=1
say "the py3-none-any wheel (host)"
"$PY" -m pip wheel "$REPO" --no-deps --no-build-isolation --quiet -w "$WORK/wheel" \
    --config-settings=pure-python=true
WHEEL="$(ls "$WORK"/wheel/*-py3-none-any.whl)"

payload() {  # dest : the tests a target runs, laid out as in the repository
    mkdir -p "$1/tests"
    cp "$REPO/pyproject.toml" "$1/"
    cp "$REPO/tests/conftest.py" "$1/tests/"
    cp -r "$REPO/tests/core" "$REPO/tests/bandtest" "$1/tests/"
    find "$1" -name __pycache__ -prune -exec rm -rf {} +
}

summary() {  # pytest log -> its closing counts ("123 passed, 2 failed") or what went wrong
    local line
    line="$(grep -E '(passed|failed|error|no tests ran).* in [0-9.]+s' "$1" | tail -1 |
        sed -E 's/^=+ //; s/ in [0-9.]+s.*//')"
    echo "${line:-no result (see $1)}"
}

rows=()
for target in $TARGETS; do
    for suite in ${CROSS_SUITES:-${SUITES[$target]}}; do
        start=$SECONDS
        root="$(sysroot "$target" "$suite")"
        relative_links "$root"
        made=$((SECONDS - start))
        start=$SECONDS
        out="$WORK/targets/$target-$suite"
        mkdir -p "$out"
        read -r version ext limited < <(in_root "$root" python3 -c '
import sys, sysconfig
limited = sys.version_info >= (3, 12)
print("%d.%d" % sys.version_info[:2], ".abi3.so" if limited else sysconfig.get_config_var("EXT_SUFFIX"), int(limited))')
        api="3.$(cut -d. -f2 <<<"$version")"
        [ "$limited" = 1 ] && api="$api abi3"
        say "$target ($suite, Python $api): compile"
        # the package as a compiled wheel lays it out: the twins' sources and the modules
        site="$root/opt/band-cross/site"
        rm -rf "$root/opt/band-cross"
        mkdir -p "$site"
        cp -r "$REPO/band_sdk_core" "$site/"
        find "$site" \( -name __pycache__ -o -name '*.so' -o -name '*.c' \) -prune -exec rm -rf {} +
        macros="-DCYTHON_USE_TYPE_SPECS=1"
        [ "$limited" = 1 ] && macros="$macros -DPy_LIMITED_API=0x030C0000"
        compile_failed=0
        : >"$out/compile.log"
        while read -r module csource; do
            # shellcheck disable=SC2086 # the flag lists are meant to split
            "${TRIPLET[$target]}-gcc" --sysroot="$root" -shared -fPIC $CROSS_CFLAGS -DNDEBUG -Wall \
                -Wsign-compare $macros -I"$root/usr/include/python$version" \
                "$csource" -o "$site/band_sdk_core/$module$ext" >>"$out/compile.log" 2>&1 ||
                compile_failed=1
        done <"$WORK/modules.txt"
        sign="$(grep -c 'Wsign-compare' "$out/compile.log" || true)"
        payload "$root/opt/band-cross"
        if [ "$compile_failed" = 1 ]; then
            twins="compile failed (see $out/compile.log)"
        else
            say "$target ($suite): tests/core, both twins"
            in_root "$root" sh -c 'cd /opt/band-cross && PYTHONPATH=/opt/band-cross/site CI=true \
                BAND_SDK_CORE_REQUIRE_EXTENSIONS=1 BAND_CROSS_EMULATED=1 \
                python3 -m pytest tests/core -q -p no:cacheprovider' >"$out/twins.log" 2>&1 || true
            twins="$(summary "$out/twins.log")"
        fi
        say "$target ($suite): the py3-none-any wheel alone"
        pure="$root/opt/band-cross/pure"
        rm -rf "$pure" "$site"
        mkdir -p "$pure"
        python3 -m zipfile -e "$WHEEL" "$pure"  # a pure wheel installs by unpacking
        in_root "$root" sh -c 'cd /opt/band-cross && export PYTHONPATH=/opt/band-cross/pure CI=true \
            BAND_CROSS_EMULATED=1 && python3 -c "from band_sdk_core import _compat as c; \
assert not c.USING_EXTENSIONS, c.__file__" && python3 -m pytest tests/core -q -p no:cacheprovider \
            -m "not compiled"' >"$out/pure.log" 2>&1 || true
        alone="$(summary "$out/pure.log")"
        took=$((SECONDS - start))
        say "$target ($suite): $twins | $alone | ${took}s"
        grep -Eq 'failed|error|no result|compile failed' <<<"$twins $alone" && status=1
        [ "$sign" = 0 ] || status=1
        rows+=("| $target (${ARCH[$target]}, Debian $suite) | $api | $twins | $alone | $sign | $took s (sysroot $made s) |")
    done
done

{
    echo "| target | Python | compiled + pure twins | py3-none-any wheel alone | -Wsign-compare warnings | time |"
    echo "| --- | --- | --- | --- | --- | --- |"
    printf '%s\n' "${rows[@]}"
} | tee "$WORK/table.md"
exit "$status"
