#!/usr/bin/env python3
"""Writes benchcore's man pages and bash completion from the program's own tables.

Every flag line comes from a --help that core/cli/flags.c prints from the flag
table the parser uses; every setting and module option from `benchcore help
settings --markdown` and `benchcore help MODULE --markdown` (the tables that
also check site.conf, as scripts/gen-docs.sh does for docs/). Only the prose
around them (NAME, DESCRIPTION, FILES, SEE ALSO) lives here.

  scripts/gen-man.py man1 BENCHCORE MODULEDIR > benchcore.1
  scripts/gen-man.py man5 BENCHCORE > benchcore.conf.5
  scripts/gen-man.py completion BENCHCORE > benchcore.bash
  scripts/gen-man.py man7 BENCHCORE sdk/README.md > benchcore-module.7

SOURCE_DATE_EPOCH (set by dpkg-buildpackage) dates the pages reproducibly.
"""
import os
import re
import subprocess
import sys
import time

FLAG_RE = re.compile(r"^ {2,6}(?:-(\w), )?--([a-z][\w-]*)(?:(?:[ =]|(?=\[))([^ ].*?))?(?: {2,}(\S.*))?$")


def help_text(bc, *args):
    r = subprocess.run([bc, *args], capture_output=True, text=True, check=False)
    out = r.stdout or r.stderr
    if not out.strip():
        sys.exit(f"gen-man: {bc} {' '.join(args)} printed nothing (exit {r.returncode})")
    return out


def subcommands(bc):
    """The subcommands as benchcore --help's usage block lists them, in its order."""
    usage = help_text(bc, "--help").split("usage:\n", 1)[1].split("\n\n", 1)[0]
    names = []
    for m in re.finditer(r"^ +benchcore ([a-z][a-z-]*)", usage, re.M):
        if m.group(1) not in names:
            names.append(m.group(1))
    return names


def esc(text):
    """Text for roff: backslashes, non-ASCII as \\[uXXXX], a leading . or '."""
    out = []
    for ch in text.replace("\\", "\\e"):
        out.append(ch if ord(ch) < 128 else "\\[u%04X]" % ord(ch))
    s = "".join(out)
    return "\\&" + s if s[:1] in (".", "'") else s


def opt_name(s):
    return esc(s).replace("-", "\\-")


def parse_flags(lines):
    """Flag rows [(short, long, metavar, help)] of one options section."""
    rows = []
    for ln in lines:
        m = FLAG_RE.match(ln)
        if m:
            rows.append([m.group(1), m.group(2), m.group(3), m.group(4) or ""])
        elif rows and ln.startswith("   ") and ln.strip():
            rows[-1][3] = (rows[-1][3] + " " + ln.strip()).strip()
    return rows


def sections(text):
    """Splits a --help into (title, lines): '' for the prose before the first
    'Options:' / 'options of X:' heading."""
    out, title, cur = [], "", []
    for ln in text.rstrip("\n").split("\n"):
        if re.match(r"^(O|o)ptions( of [^:]+)?( \(.*\))?:$", ln):
            out.append((title, cur))
            title, cur = ln.rstrip(":"), []
        elif title and not ln.strip():
            out.append((title, cur))
            title, cur = "", []
        else:
            cur.append(ln)
    out.append((title, cur))
    return [(t, c) for t, c in out if t or any(x.strip() for x in c)]


def roff_flags(rows):
    out = []
    for short, lng, meta, hlp in rows:
        head = (f"\\fB\\-{short}\\fR, " if short else "") + f"\\fB\\-\\-{opt_name(lng)}\\fR"
        if meta:
            head += f" \\fI{esc(meta)}\\fR"
        out += [".TP", head, esc(hlp)]
    return out


def roff_prose(lines):
    """Blocks split at blank lines: flush-left text is filled, indented or
    column-laid text (lists, usage lines) kept as it is."""
    out, block = [], []
    for ln in lines + [""]:
        if ln.strip():
            block.append(ln)
            continue
        if not block:
            continue
        if block[0].startswith("usage:"):
            pass	# in SYNOPSIS already
        elif all(not b.startswith(" ") for b in block):
            out += [".PP", esc(" ".join(b.strip() for b in block))]
        else:
            # laid out for 80 columns at --help's indent of 2: less of the page's 7
            out += [".PP", ".in -4n", ".nf"] + [esc(b) for b in block] + [".fi", ".in +4n"]
        block = []
    return out


def th(name, sec, version, manual):
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))
    date = time.strftime("%Y-%m-%d", time.gmtime(epoch))
    return [f'.TH {name} {sec} "{date}" "benchcore {version}" "{manual}"']


def version_of(bc):
    m = re.match(r"benchcore (\S+)", help_text(bc, "--version"))
    return m.group(1) if m else "unknown"


def man1(bc, moduledir):
    top = help_text(bc, "--help")
    version = version_of(bc)
    summary = top.split("\n", 1)[0].split(": ", 1)[-1]
    out = th("BENCHCORE", "1", version, "User Commands")
    out += [".SH NAME", f"benchcore \\- {esc(summary)}", ".SH SYNOPSIS", ".nf"]
    # -c and run from the top --help; every other command's from its own
    usage = top.split("usage:\n", 1)[1].split("\n\n", 1)[0].split("\n")[:3]
    cmds = subcommands(bc)
    for cmd in cmds[1:]:
        usage += [ln for ln in help_text(bc, cmd, "--help").split("\n\n", 1)[0].split("\n")
                  if re.match(r"^(usage:)? *benchcore ", ln)]
    for ln in usage + ["benchcore --help | --version"]:
        cmd = re.split(r" {2,}", re.sub(r"^usage: *", "", ln).strip())[0]
        if cmd.startswith("benchcore"):
            out.append("\\fBbenchcore\\fR " + opt_name(cmd[len("benchcore "):]))
    out += [".fi", ".SH DESCRIPTION",
            "benchcore runs system benchmarks (cpu, mem, io, rsa and, where their servers or peers exist, "
            "oltp, redis, net) from one configuration file, see \\fBbenchcore.conf\\fR(5). It sweeps thread "
            "counts and parameters, warms up, repeats, records the machine it ran on, and writes JSON results "
            "that \\fBbenchcore compare\\fR turns into win, loss, tie or inconclusive verdicts and "
            "\\fBbenchcore report\\fR into one HTML page. Every workload is a module (a shared object) loaded "
            "at run time."]
    exit_text = ""
    for title, lines in sections(top):
        if not title:
            continue
        if title.startswith("options of -c"):
            out += [".SH OPTIONS", ".SS \"benchcore \\-c FILE\""]
        else:
            m = re.match(r"options of (\S+)(?: \((.*)\))?", title)
            out += [f".SS \"benchcore {opt_name(m.group(1))}\""]
            if m.group(2):
                out += [esc(m.group(2)[0].upper() + m.group(2)[1:]) + "."]
        out += roff_flags(parse_flags(lines))
    tail = top.split("\nExit status: ", 1)
    if len(tail) == 2:
        exit_text = tail[1].split("\nModules are searched", 1)[0]
    out += [".SH COMMANDS"]
    for cmd in cmds[1:]:
        out += [f".SS \"benchcore {cmd}\""]
        for title, lines in sections(help_text(bc, cmd, "--help")):
            if title:
                out += roff_flags(parse_flags(lines))
            else:
                out += roff_prose(lines)
    out += [".SH EXIT STATUS", esc(" ".join(exit_text.split())),
            ".SH FILES", ".TP", f"\\fI{esc(moduledir)}/*.so\\fR",
            "the modules; \\fBmodule_path\\fR in the configuration and \\fB\\-\\-module\\-path\\fR search "
            "other directories first. A module file or directory writable by group or others is refused.",
            ".SH EXAMPLES", ".nf", "benchcore run cpu max_prime=10000 \\-\\-threads 1,2 \\-\\-time 10",
            "benchcore \\-c site.conf \\-o run.json \\-\\-start\\-at 2026\\-12\\-01T10:00:00Z",
            "benchcore compare old.json new.json", "benchcore report results/*.json \\-o fleet.html", ".fi",
            ".SH SEE ALSO", "\\fBbenchcore.conf\\fR(5), \\fBbenchcore\\-module\\fR(7) (writing a module), "
            "\\fBansible\\-playbook\\fR(1), \\fBsysbench\\fR(1), "
            "\\fBfio\\fR(1); the results schema and the fleet playbook in the documentation of the package."]
    return out


def md_rows(text):
    """(heading, [[cells]]) blocks of a markdown output: ### headings, | tables."""
    blocks, head = [], None
    for ln in text.split("\n"):
        if ln.startswith("### "):
            head = ln[4:]
            blocks.append((head, []))
        elif ln.startswith("| ") and not ln.startswith("|---"):
            cells = [c.strip() for c in ln.strip()[1:-1].split(" | ")]
            if not blocks:
                blocks.append((None, []))
            blocks[-1][1].append(cells)
    return [(h, rows[1:]) for h, rows in blocks]	# rows[0]: the header


def md_item(key, typ, dflt, meaning):
    """A .TP entry of a settings or options row; a long default goes in the body."""
    short = dflt and len(dflt) <= 30
    what = esc(typ) + (f"; default {md_inline(dflt)}" if short else "")
    body = md_inline(meaning) + (f" Default: {md_inline(dflt.replace(',', ', '))}." if dflt and not short else "")
    return [".TP", f"{md_inline(key)} ({what})", body]


def md_inline(s):
    """`code` to bold; the rest escaped."""
    parts = s.split("`")
    return "".join(("\\fB" + opt_name(p) + "\\fR") if i % 2 else esc(p) for i, p in enumerate(parts))


def modules_of(bc):
    names = []
    for ln in help_text(bc, "list").split("\n")[1:]:
        if not ln.strip():
            break
        m = re.match(r"^([a-z0-9_]+) ", ln)
        if m:
            names.append(m.group(1))
    return names


def man5(bc):
    version = version_of(bc)
    out = th("BENCHCORE.CONF", "5", version, "File Formats")
    out += [".SH NAME", "benchcore.conf \\- benchcore's configuration file (site.conf): settings and modules",
            ".SH SYNOPSIS", "\\fBbenchcore \\-c\\fR \\fIsite.conf\\fR",
            ".SH DESCRIPTION",
            "The file is in libconfig syntax. Every key is checked before anything runs: an unknown key, a "
            "wrong type, an out\\-of\\-range value or a bad choice is an error that names the file and line "
            "and lists what is valid. Any module option given as a list is a sweep dimension: the module runs "
            "every combination, at every thread count, \\fBrepeat\\fR times. Run settings may also appear "
            "inside a module entry (for that module only) and each has a \\fBbenchcore run\\fR flag.",
            ".PP", ".EX",
            'label = "centos7\\-ext4";',
            "threads = [1, 2, 4, 8];",
            "time = 60;",
            "repeat = 5;",
            "modules = (",
            '\t{ name = "cpu"; max_prime = 10000; },',
            '\t{ name = "mem"; block_size = ["4K", "16K", "2M"]; oper = ["read", "write"]; },',
            '\t{ name = "oltp"; enabled = false; }',
            ");", ".EE", ".SH SETTINGS"]
    for head, rows in md_rows(help_text(bc, "help", "settings", "--markdown")):
        out += [f".SS \"{esc(head.replace('`', ''))}\""]
        for key, flag, typ, dflt, meaning in rows:
            out += md_item(key, typ + (f"; flag {flag.strip('`')}" if flag else ""), dflt, meaning)
    out += [".SH MACHINE SETTINGS",
            "A \\fBmachine = { ... }\\fR group (top level: every module; a module entry's own replaces it) "
            "sets machine settings before the cases, checks each took effect, and restores them after; a list "
            "is a sweep dimension like an option's. Root is needed. See the documentation's machine.md."]
    for _, rows in md_rows(help_text(bc, "help", "machine", "--markdown")):
        for key, vals, what, files in rows:
            out += md_item(key, vals, "", what + " Writes: " + files + ".")
    out += [".SH MODULES", "A module entry takes the module's own options below and the run settings above."]
    for name in modules_of(bc):
        first = help_text(bc, "help", name).split("\n", 1)[0]
        out += [f".SS {esc(name)}", esc(first)]
        for _, rows in md_rows(help_text(bc, "help", name, "--markdown")):
            for row in rows:
                out += md_item(*(row + ["", "", "", ""])[:4])
    out += [".SH SEE ALSO", "\\fBbenchcore\\fR(1)"]
    return out


def words(flags):
    return " ".join(("-" + s + " " if s else "") + "--" + lng for s, lng, _, _ in flags)


def completion(bc):
    """A bash completion whose flag lists are the --help of this build; module
    names and a module's options are asked of benchcore when completing."""
    top = sections(help_text(bc, "--help"))
    per = {"suite": [], "run": []}
    for title, lines in top:
        if title.startswith("options of -c"):
            per["suite"] = parse_flags(lines)
        elif title.startswith("options of run"):
            per["run"] = parse_flags(lines)
    cmds = subcommands(bc)
    for cmd in cmds[1:]:
        per[cmd] = [r for t, ls in sections(help_text(bc, cmd, "--help")) if t for r in parse_flags(ls)]
    meta = {}
    for rows in per.values():
        for s, lng, mv, _ in rows:
            if mv and not mv.startswith("["):	# "[=DB]": the next word is not its value
                meta["--" + lng] = mv
                if s:
                    meta["-" + s] = mv
    # a setting's choices (its type column: "rounds, back_to_back") for a
    # metavar that does not spell them (ORDER)
    for _, rows in md_rows(help_text(bc, "help", "settings", "--markdown")):
        for row in rows:
            flag, typ = row[1].strip("`"), row[2]
            if flag and " " in flag and re.fullmatch(r"[\w]+(, [\w]+)+", typ):
                meta[flag.split(" ")[0]] = typ.replace(", ", "|")
    cases = "\n".join(f"\t{k}) flags=\"{words(v)}\" ;;" for k, v in per.items())
    metas = "\n".join(f"\t{k}) mv='{v}' ;;" for k, v in sorted(meta.items()))
    return COMPLETION.replace("@CASES@", cases).replace("@METAS@", metas).replace(
        "@CMDS@", " ".join(cmds)).replace("@CMDALT@", "|".join(cmds)).split("\n")


COMPLETION = r"""# bash completion for benchcore, generated by scripts/gen-man.py from the
# flag tables of this build (their --help); module names and a module's
# options come from the benchcore being completed (benchcore list / help).

# Module names the benchcore in $1 finds (its list, up to the blank line).
_benchcore_modules()
{
	"$1" list 2>/dev/null | awk 'NR > 1 && /^$/ { exit } NR > 1 && /^[a-z0-9_]+ / { print $1 }'
}

# The options of module $2 as key= words.
_benchcore_module_keys()
{
	"$1" help "$2" --markdown 2>/dev/null | awk -F'`' '/^\| `/ { print $2 "=" }'
}

_benchcore()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local bc=${COMP_WORDS[0]} cmd=suite flags mv="" i module=""
	[ "$bc" = benchcore ] || [ -x "$bc" ] || bc=benchcore
	COMPREPLY=()
	if [ "$COMP_CWORD" -eq 1 ] && [[ $cur != -* ]]; then
		COMPREPLY=($(compgen -W "@CMDS@" -- "$cur"))
		return 0
	fi
	case ${COMP_WORDS[1]} in
	@CMDALT@) cmd=${COMP_WORDS[1]} ;;
	esac
	case $cmd in
@CASES@
	esac
	[ "$COMP_CWORD" -eq 1 ] && flags="$flags --help --version"
	case $prev in
@METAS@
	esac
	if [ -n "$mv" ]; then
		case $mv in
		*\|*) COMPREPLY=($(compgen -W "${mv//|/ }" -- "$cur")) ;;
		DIR) COMPREPLY=($(compgen -d -- "$cur")) ;;
		a,b) local pre=""; [[ $cur == *,* ]] && pre=${cur%,*},
			COMPREPLY=($(compgen -P "$pre" -W "$(_benchcore_modules "$bc")" -- "${cur##*,}")) ;;
		NAME|TEXT|S|N|PCT|SHARE|A|ADDR|1,2,4|ORDER) ;;
		*) COMPREPLY=($(compgen -f -- "$cur")) ;;
		esac
		return 0
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$flags" -- "$cur"))
		return 0
	fi
	# the first word after run/help that is not a flag or a flag's value
	for ((i = 2; i < COMP_CWORD; i++)); do
		local w=${COMP_WORDS[i]} p=${COMP_WORDS[i-1]}
		[[ $w == -* || $w == *=* ]] && continue
		[[ $i -gt 2 && $p == -* && " $flags " == *" $p "* ]] && _benchcore_takes "$p" && continue
		module=$w
		break
	done
	case $cmd in
	run)
		if [ -z "$module" ]; then
			COMPREPLY=($(compgen -W "$(_benchcore_modules "$bc")" -- "$cur"))
		else
			compopt -o nospace 2>/dev/null
			COMPREPLY=($(compgen -W "$(_benchcore_module_keys "$bc" "$module")" -- "$cur"))
		fi ;;
	help) [ -z "$module" ] && COMPREPLY=($(compgen -W "settings $(_benchcore_modules "$bc")" -- "$cur")) ;;
	compare|report|history) COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur")) ;;
	esac
	return 0
}

# Whether flag $1 takes a value (so the word after it is not a module).
_benchcore_takes()
{
	local mv=""
	case $1 in
@METAS@
	esac
	[ -n "$mv" ]
}
complete -F _benchcore benchcore
"""


def man7(bc, guide):
    """benchcore-module(7): the SDK guide (sdk/README.md) as a man page, so
    `man benchcore-module` shows what benchcore-dev's users read: headings
    as sections, code and tables kept as laid out, paragraphs filled."""
    out = th("BENCHCORE\\-MODULE", 7, version_of(bc), "benchcore SDK") + [
        ".SH NAME", "benchcore\\-module \\- writing a benchcore workload module (the SDK guide)"]
    text = open(guide, encoding="utf-8").read().split("\n")
    para, code = [], False

    def flush():
        if para:
            out.extend([".PP", md_inline(" ".join(p.strip() for p in para))])
            para.clear()
    for ln in text:
        if not code:	# links to their text, no ** markers
            ln = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", ln).replace("**", "")
        if ln.startswith("```"):
            flush()
            out.append(".fi" if code else ".nf")
            code = not code
        elif code:
            out.append(esc(ln) if ln else "")
        elif ln.startswith("# "):
            continue	# the title: NAME says it
        elif ln.startswith("#"):
            flush()
            out.append((".SH " if ln.startswith("## ") else ".SS ") + esc(ln.lstrip("# ").upper()
                                                                           if ln.startswith("## ") else ln.lstrip("# ")))
        elif ln.startswith("|"):
            flush()
            if not re.match(r"^\|[-| ]+\|$", ln):
                out.extend([".br", md_inline(" ".join(c.strip() for c in ln.strip("|").split("|")))])
        elif ln.startswith(("- ", "* ")) or re.match(r"^\d+\. ", ln):
            flush()
            para.append(ln)
            out.append(".IP \\(bu 2" if ln[0] in "-*" else ".IP")
            out.append(md_inline(re.sub(r"^(- |\* |\d+\. )", "", ln)))
            para.clear()
        elif not ln.strip():
            flush()
        else:
            para.append(ln)
    flush()
    out += [".SH SEE ALSO", "\\fBbenchcore\\fR(1), \\fBbenchcore.conf\\fR(5), \\fBpkg\\-config\\fR(1); the "
            "examples in /usr/share/benchcore/examples"]
    return out


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("man1", "man5", "man7", "completion"):
        sys.exit(__doc__)
    kind, bc = sys.argv[1], sys.argv[2]
    if kind == "man1":
        lines = man1(bc, sys.argv[3] if len(sys.argv) > 3 else "/usr/lib/benchcore/modules")
    elif kind == "man5":
        lines = man5(bc)
    elif kind == "man7":
        lines = man7(bc, sys.argv[3] if len(sys.argv) > 3 else "sdk/README.md")
    else:
        lines = completion(bc)
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
