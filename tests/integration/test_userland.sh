#!/usr/bin/env bash
# The userland in the fingerprint (issue 60): os-release's name, version and
# codename, glibc, the core's libraries and every shared object loaded, checked
# against the machine's own files and the libraries' own version calls (python
# ctypes loads the same libraries and asks them); a module's loaded libraries
# in its case's info; and compare naming the userland first when two files
# come from different releases on the same hardware.
. "$(dirname "$0")/lib.sh"
FX=$(cd "$(dirname "$0")/../fixtures" && pwd)

"$BC" sysinfo --json >$T/si.json 2>$T/si.err </dev/null
RC=$?
expect_rc "sysinfo --json" 0
# os-release as the shell reads it (the file is shell syntax): /etc first, /usr/lib otherwise
OSR=/etc/os-release; [ -r $OSR ] || OSR=/usr/lib/os-release
eval "$(. $OSR; printf 'ON=%q OV=%q OC=%q\n' "${NAME:-}" "${VERSION_ID:-}" "${VERSION_CODENAME:-}")"
expect_py "os-release: os_name '$ON', os_version '$OV', os_codename '$OC' as $OSR says" $T/si.json \
	'd.get("os_name") == "'"$ON"'" and d.get("os_version") == "'"$OV"'" and d.get("os_codename", "") == "'"$OC"'"'
cat >$T/calls.py <<'EOF'
# Each library's own version call, through the library file the fingerprint
# says benchcore loaded (so the same file answers, not another copy).
import ctypes, json, os, sys
d = json.load(open(sys.argv[1]))
loaded, libs, bad = d["loaded"], d["libraries"], []
def lib(prefix):
    names = [n for n in loaded if n.startswith(prefix)]
    return ctypes.CDLL(loaded[names[0]]) if names else None
def call(l, fn, res=ctypes.c_char_p, *args):
    f = getattr(l, fn); f.restype = res; r = f(*args)
    return r.decode() if isinstance(r, bytes) else r
c = lib("libc.so")
want = {
    "libc": call(c, "gnu_get_libc_version"),
    "libraries.openssl": call(lib("libcrypto.so"), "OpenSSL_version", ctypes.c_char_p, ctypes.c_int(0)),
    "libraries.sqlite": call(lib("libsqlite3.so"), "sqlite3_libversion"),
    "libraries.zlib": call(lib("libz.so"), "zlibVersion"),
    "libraries.jansson": call(lib("libjansson.so"), "jansson_version_str"),
}
pq = call(lib("libpq.so"), "PQlibVersion", ctypes.c_int)
want["libraries.libpq"] = "%d.%d" % (pq // 10000, pq % 10000) if pq >= 100000 else "%d.%d.%d" % (pq // 10000, pq // 100 % 100, pq % 100)
for k, v in want.items():
    got = d["libc"] if k == "libc" else libs.get(k.split(".", 1)[1])
    print("%-20s fingerprint %-34r library's call %r" % (k, got, v))
    if got != v:
        bad.append(k)
for n, p in loaded.items():   # every object by its own file, links resolved
    if not (os.path.isabs(p) and os.path.realpath(p) == p and os.path.exists(p)):
        bad.append("loaded." + n)
print("bad:", bad)
sys.exit(1 if bad else 0)
EOF
check "libc, OpenSSL, SQLite, zlib, jansson, libpq: the fingerprint says what each library's own call says" \
	"$PY" $T/calls.py $T/si.json
# what a running benchcore has mapped (its /proc/PID/maps) against "loaded": the same files
"$BC" run cpu --threads 1 --time 0.5 --warmup 0 -q -o $T/maps.json >/dev/null 2>&1 &
bcpid=$!
until_seen 100 grep -q 'libjansson' /proc/$bcpid/maps
awk '$6 ~ /\.so(\.[0-9]+)*$/ {print $6}' /proc/$bcpid/maps | sort -u >$T/maps.txt
wait $bcpid
"$PY" -S -c 'import json,sys; d=json.load(open(sys.argv[1])); m=set(l.strip() for l in open(sys.argv[2])); print("mapped:", len(m), "not in loaded:", sorted(m - set(d["host"]["loaded"].values())))' $T/maps.json $T/maps.txt
expect_py "loaded: every core library benchcore mapped while running is listed, by its file" $T/maps.json \
	'3 <= len(set(open("'$T/maps.txt'"))) and set(l.strip() for l in open("'$T/maps.txt'") if "/modules/" not in l) <= set(d["host"]["loaded"].values())'
expect_py "a results file's host holds the same userland facts" $T/maps.json \
	'all(d["host"].get(k) == v for k, v in json.load(open("'$T/si.json'")).items() if k in ("os", "os_name", "os_version", "os_codename", "libc", "libraries"))'

# --- a module's own libraries: the objects its file brought in, in its case's info
if [ -f "$(dirname "$BC")/modules/rsa.so" ]; then
	run_bc $T/rsa run rsa --time 0.1 --warmup 0 -q -o $T/rsa.json
	expect_py "rsa's case info names the libraries it brought in: none the core has (libcrypto is the core's too)" $T/rsa.json \
		'"libcrypto" not in d["cases"][0]["info"].get("libraries_loaded", "") and "libcrypto.so" in str(d["host"]["loaded"])'
fi
if command -v redis-server >/dev/null && [ -f "$(dirname "$BC")/modules/redis.so" ]; then
	run_bc $T/rd run redis tests=PING_INLINE --time 0.1 --warmup 0 -q -o $T/rd.json
	expect_py "redis's case info names libhiredis by its file (links resolved), beside hiredis_version" $T/rd.json \
		'any(w.startswith("libhiredis.so") and "/libhiredis.so" in w for w in d["cases"][0]["info"]["libraries_loaded"].split(", "))'
else
	echo "SKIP: redis: no redis-server here: a module's loaded libraries checked with rsa only"
fi

# --- compare: two releases on the same hardware name the userland first
"$PY" -S - $FX/cmp-a.json $T <<'EOF'
import json, sys
src, out = sys.argv[1], sys.argv[2]
a = json.load(open(src))
h = a["host"]
h.update({"os": "Debian GNU/Linux 12 (bookworm)", "os_name": "Debian GNU/Linux", "os_version": "12",
          "os_codename": "bookworm", "libc": "2.36"})
h["libraries"] = {"jansson": "2.14", "openssl": "OpenSSL 3.0.19 27 Jan 2026"}
h["loaded"] = {"libssl.so.3": "/usr/lib/x86_64-linux-gnu/libssl.so.3"}
json.dump(a, open(out + "/rel12.json", "w"))
b = json.loads(json.dumps(a))
b["label"] = "trixie"
b["host"].update({"os": "Debian GNU/Linux 13 (trixie)", "os_version": "13", "os_codename": "trixie", "libc": "2.41"})
b["host"]["libraries"]["openssl"] = "OpenSSL 3.5.4 30 Sep 2025"
json.dump(b, open(out + "/rel13.json", "w"))
k = json.loads(json.dumps(b))              # the kernel of the new release too
k["host"]["kernel"] = "6.12.57+deb13-amd64"
json.dump(k, open(out + "/rel13k.json", "w"))
c = json.loads(json.dumps(k))              # and another CPU: the hardware is named first
c["host"]["cpu_model"] = "AMD EPYC 7B13"
json.dump(c, open(out + "/rel13c.json", "w"))
EOF
WD='^what differs, most likely to explain a difference: '
run_bc $T/ul compare $T/rel12.json $T/rel13.json
expect_grep "compare: the userland alone differs: named, release, libc and OpenSSL" $T/ul.out \
	"${WD}userland \(os: Debian GNU/Linux 12 \(bookworm\) -> Debian GNU/Linux 13 \(trixie\); libc: 2\.36 -> 2\.41; libraries\.openssl: OpenSSL 3\.0\.19 27 Jan 2026 -> OpenSSL 3\.5\.4 30 Sep 2025, and [0-9]+ more\)"
run_bc $T/ulk compare $T/rel12.json $T/rel13k.json
expect_grep "compare: a new release with its kernel, same hardware: the userland first, the kernel second" $T/ulk.out \
	"${WD}userland \(os: .*\); kernel \(kernel: .* -> 6\.12\.57\+deb13-amd64\)$"
run_bc $T/ulc compare $T/rel12.json $T/rel13c.json
expect_grep "compare: another CPU as well: the CPU first, then the kernel (the userland is not the only suspect)" $T/ulc.out \
	"${WD}CPU \(cpu_model: .*\); kernel \("
expect_grep "compare: the userland's facts listed among the host's differences" $T/ul.out "os_codename"
