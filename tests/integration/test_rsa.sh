#!/usr/bin/env bash
# rsa module: sign/verify figures and op classes, the OpenSSL version in the
# results, op=sign/verify/both, the other EVP families, option errors.
. "$(dirname "$0")/lib.sh"
Q=(--warmup 0.1 -q)

# --- the default: rsa2048, op=both, 1 and 2 threads
run_bc $T/r run rsa --threads 1,2 --time 1 "${Q[@]}" -o $T/r.json
expect_rc "rsa --threads 1,2 runs" 0
expect_py "two ok cases, rsa 2048 op=both" $T/r.json \
	'[(c["status"], c["threads"], c["params"]["bits"], c["params"]["op"]) for c in d["cases"]] == [("ok", 1, "2048", "both"), ("ok", 2, "2048", "both")]'
expect_py "sign_per_sec and verify_per_sec reported, > 0" $T/r.json \
	'all(c["metrics"]["sign_per_sec"]["value"] > 0 and c["metrics"]["verify_per_sec"]["value"] > 0 for c in d["cases"])'
expect_py "rsa2048: verify/s > sign/s" $T/r.json \
	'all(c["metrics"]["verify_per_sec"]["value"] > c["metrics"]["sign_per_sec"]["value"] for c in d["cases"])'
expect_py "sign and verify are separate op classes with latency" $T/r.json \
	'all(c["ops"][o]["count"] > 0 and c["ops"][o]["errors"] == 0 and 0 < c["ops"][o]["latency_ns"]["min"] <= c["ops"][o]["latency_ns"]["p50"] <= c["ops"][o]["latency_ns"]["max"] for c in d["cases"] for o in ("sign", "verify"))'
expect_py "op=both: each rate is at least its share of the window" $T/r.json \
	'all(c["metrics"][o + "_per_sec"]["value"] >= c["ops"][o]["count"] / c["duration_s"] for c in d["cases"] for o in ("sign", "verify"))'
expect_py "openssl_version is in the case's info" $T/r.json \
	'all(c["info"]["openssl_version"].startswith("OpenSSL ") for c in d["cases"])'
expect_py "no bulk op classes used by rsa" $T/r.json \
	'all(c["ops"]["encrypt"]["count"] == 0 and c["ops"]["digest"]["count"] == 0 for c in d["cases"])'

# --- op=sign / op=verify: one class each, rate = count / window
run_bc $T/o run rsa op=sign,verify bits=1024 --time 0.5 "${Q[@]}" -o $T/o.json
expect_rc "op=sign,verify sweep" 0
expect_py "op=sign records only sign, op=verify only verify" $T/o.json \
	'all(c["ops"][c["params"]["op"]]["count"] > 0 and c["ops"][{"sign": "verify", "verify": "sign"}[c["params"]["op"]]]["count"] == 0 for c in d["cases"])'
expect_py "single-op rate = count / duration (0.1%), other metric absent" $T/o.json \
	'all(abs(c["metrics"][c["params"]["op"] + "_per_sec"]["value"] - c["ops"][c["params"]["op"]]["count"] / c["duration_s"]) <= 1e-3 * c["metrics"][c["params"]["op"] + "_per_sec"]["value"] and len([m for m in c["metrics"] if m in ("sign_per_sec", "verify_per_sec")]) == 1 for c in d["cases"])'

# --- other signature algorithms
run_bc $T/e run rsa algo=ecdsa-p256,ed25519 --time 0.4 "${Q[@]}" -o $T/e.json
expect_rc "ecdsa-p256 and ed25519 run" 0
expect_py "ecdsa-p256 and ed25519 report sign and verify" $T/e.json \
	'len(d["cases"]) == 2 and all(c["status"] == "ok" and c["metrics"]["sign_per_sec"]["value"] > 0 and c["metrics"]["verify_per_sec"]["value"] > 0 and c["ops"]["sign"]["errors"] + c["ops"]["verify"]["errors"] == 0 for c in d["cases"])'

# --- throughput families: bytes per op = block_size
run_bc $T/b run rsa algo=aes-256-gcm,sha256 block_size=16,16K --time 0.3 "${Q[@]}" -o $T/b.json
expect_rc "aes-256-gcm and sha256 at 16 B and 16K" 0
expect_py "4 ok cases; gcm records encrypt, sha256 digest" $T/b.json \
	'len(d["cases"]) == 4 and all(c["status"] == "ok" and c["ops"][{"aes-256-gcm": "encrypt", "sha256": "digest"}[c["params"]["algo"]]]["count"] > 0 for c in d["cases"])'
expect_py "bytes = count x block_size, no errors" $T/b.json \
	'all(o["bytes"] == o["count"] * c["params"]["block_size"] and o["errors"] == 0 for c in d["cases"] for o in c["ops"].values() if o["count"])'
expect_py "mib_per_sec = bytes / MiB / duration (0.1%)" $T/b.json \
	'all(abs(c["metrics"]["mib_per_sec"]["value"] - sum(o["bytes"] for o in c["ops"].values()) / 1048576 / c["duration_s"]) <= 1e-3 * c["metrics"]["mib_per_sec"]["value"] for c in d["cases"])'
expect_py "no sign/verify metrics for bulk algorithms" $T/b.json \
	'all("sign_per_sec" not in c["metrics"] and "verify_per_sec" not in c["metrics"] for c in d["cases"])'

# --- option errors: exit 2, the option named, the valid values listed
run_bc $T/x1 run rsa bits=1000 --time 0.1 -q
expect_rc "bits=1000 is refused" 2
expect_grep "bits=1000: names bits and the choices" $T/x1.err 'bits.*1024, 2048, 3072, 4096'
run_bc $T/x2 run rsa algo=rot13 --time 0.1 -q
expect_rc "algo=rot13 is refused" 2
expect_grep "algo: lists the choices" $T/x2.err 'algo.*rsa, ecdsa-p256, ed25519, aes-256-gcm, sha256'
run_bc $T/x3 run rsa op=encrypt --time 0.1 -q
expect_grep "op: lists the choices" $T/x3.err 'op.*both, sign, verify'
run_bc $T/x4 run rsa algo=sha256 block_size=8 --time 0.1 -q
expect_rc "block_size=8 (below 16) is refused" 2
expect_grep "block_size: names the range" $T/x4.err 'block_size.*16 \.\. 16K'
run_bc $T/x5 run rsa algo=sha256 block_size=32K --time 0.1 -q
expect_rc "block_size=32K (above 16K) is refused" 2

run_bc $T/h help rsa
expect_grep "help rsa lists bits with default 2048" $T/h.out 'bits +enum +2048'
