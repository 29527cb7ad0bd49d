#!/usr/bin/env bash
# cli_help.sh - the help is generated once from each command's options table
# (cli/cli.h cli_spec, cli/cliopts.h subcommands), so every form prints the
# same text: `latlab help CMD` == `latlab CMD --help` == `latlab CMD -h`, and
# for a command of subcommands `latlab help CMD SUB` == `latlab CMD SUB --help`,
# with SUB's text inside CMD's.  Each help names an option that is then
# refused with a bad value (exit 2 naming it), and an unknown option exits 2
# naming it, before any work.  Every command is on a table (profile too).
set -u
: "${LATLAB:?set LATLAB to the latlab binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# the command names from the overview's "commands:" list
cmds=$("$LATLAB" help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF {print $1}')
[ -n "$cmds" ] || fail "no commands in 'latlab help'"

same() { # what: the two files must be equal and not empty
    [ -s "$tmp/a" ] || fail "$1: empty help"
    cmp -s "$tmp/a" "$tmp/b" || fail "$1: the two forms differ"
}

for c in $cmds; do
    "$LATLAB" help "$c" >"$tmp/a" 2>&1 || fail "latlab help $c exited $?"
    "$LATLAB" "$c" --help >"$tmp/b" 2>&1 || fail "latlab $c --help exited $?"
    same "help $c / $c --help"
    "$LATLAB" "$c" -h >"$tmp/b" 2>&1 || fail "latlab $c -h exited $?"
    same "help $c / $c -h"
    grep -q "^usage: " "$tmp/a" || fail "help $c has no usage line"
    cp "$tmp/a" "$tmp/whole"
    # subcommands (a command of subcommands lists them)
    subs=$(sed -n '/^subcommands:/,/^$/p' "$tmp/whole" | awk 'NR > 1 && NF {print $1}')
    for s in $subs; do
        "$LATLAB" help "$c" "$s" >"$tmp/a" 2>&1 || fail "latlab help $c $s exited $?"
        "$LATLAB" "$c" "$s" --help >"$tmp/b" 2>&1 || fail "latlab $c $s --help exited $?"
        same "help $c $s / $c $s --help"
        grep -q "^usage: latlab $c $s" "$tmp/a" || fail "help $c $s: not its own usage line"
        # the subcommand's text is part of the command's
        head -1 "$tmp/a" | sed 's/^usage: //' >"$tmp/line"
        grep -qF -f "$tmp/line" "$tmp/whole" || fail "help $c does not include $s's help"
    done
    # an unknown option: exit 2 naming it (after the subcommand, if any)
    first=$(printf '%s\n' $subs | head -1)
    "$LATLAB" "$c" $first --no-such-flag >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "latlab $c $first --no-such-flag exited $rc, want 2"
    grep -q -- "--no-such-flag" "$tmp/err" || fail "$c: unknown flag not named: $(cat "$tmp/err")"
done

# A subcommand that does not exist, and none at all, for the commands of subcommands.
for c in hist book; do
    "$LATLAB" "$c" no-such-sub >/dev/null 2>"$tmp/err"
    [ $? -eq 2 ] || fail "$c no-such-sub should exit 2"
    grep -q "no-such-sub" "$tmp/err" || fail "$c: unknown subcommand not named"
    "$LATLAB" "$c" >/dev/null 2>"$tmp/err"
    [ $? -eq 2 ] || fail "$c without a subcommand should exit 2"
done

# A table row's own range check names the flag (clock: --samples 1000..100000000).
"$LATLAB" clock --samples 5 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q -- "--samples" "$tmp/err" || fail "clock --samples 5: $(cat "$tmp/err")"

# A command of several forms, each with its own table (profile: its own form,
# diff, fold, lab): an option of another form is refused as such, naming it;
# a value is refused naming the flag as it was given (-F or --freq).
"$LATLAB" profile fold --limit 3 x >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q -- "--limit: not with this form" "$tmp/err" ||
    fail "profile fold --limit: $(cat "$tmp/err")"
"$LATLAB" profile -F 0 -- true >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q -- "-F: 0 is out of range" "$tmp/err" || fail "profile -F 0: $(cat "$tmp/err")"
"$LATLAB" profile --freq 0 -- true >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q -- "--freq: 0 is out of range" "$tmp/err" ||
    fail "profile --freq 0: $(cat "$tmp/err")"
"$LATLAB" help profile >"$tmp/a"
grep -q "^  -F, --freq HZ" "$tmp/a" || fail "help profile lacks its own form's options"

[ $fails -eq 0 ] || exit 1
echo "cli_help: every help form agrees"
