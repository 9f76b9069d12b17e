#!/usr/bin/env python3
"""--json on the operator's read-only commands, and the web view's JSON
(docs/json.md), checked with jq.

usage: json_output.py TABULA SOURCE_DIR

A store holds a game of each of the thirteen game systems, played by mail
(tests/harness/bymail.py), one finished by resignation (so someone is
rated), one adjudicated with a reason in UTF-8, and a round robin. Then:

  * `tabula games --json | jq` and `tabula show N --json | jq` for every
    game: the version first, every key docs/json.md lists in its order,
    each of its type (jq -e filters);
  * the text output is what it was: rebuilt from the JSON by the text
    format's rules, it is byte for byte what `games` and `show` print (so
    text and JSON come from the same data, and the text did not change);
  * ratings, tournament show, check and check-config the same way, with
    the exit status of each as without --json (a missing game, a damaged
    game found by check);
  * a store row that is not UTF-8 still gives JSON (U+FFFD in its place);
  * `tabula site` writes index.json and game-N.json beside the pages:
    their shape by jq, no "@" nor any part of a player's address in them,
    players by initials, each page's last position the game's own.

Prints "N passed, M failed".
"""
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile

TABULA, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "tests", "harness"))
import bymail  # noqa: E402
from testkit import check, finish  # noqa: E402  (tests/harness/testkit.py)

GAMES = ["chess", "checkers", "backgammon", "bgchess", "lagbgchess", "backtoback",
         "tableschess", "chessgammon", "chessgammon4x8", "doublemove", "racingkings",
         "bodlaender", "cwda"]


def jq(filt, text):
    """jq -e FILTER on text: true when it parses and the filter is true."""
    p = subprocess.run(["jq", "-e", filt], input=text.encode(), capture_output=True,
                       timeout=60)
    return p.returncode == 0, p.stdout.decode(errors="replace") + p.stderr.decode(
        errors="replace")


# The shapes of docs/json.md as jq filters: keys in order, each of its type.
def keys_are(names):
    return "(keys_unsorted == %s)" % json.dumps(names)


HEAD = '.tabula_json == 1 and (.what | type == "string")'
NUM, STR, BOOL = "number", "string", "boolean"


def typed(field, *types):
    return "(%s | type | IN(%s))" % (field, ", ".join(json.dumps(x) for x in types))


PLAYER = "(%s and %s and %s and %s and %s)" % (
    keys_are(["seat", "side", "address", "accepted"]), typed(".seat", NUM),
    typed(".side", STR, "null"), typed(".address", STR), typed(".accepted", BOOL))
GAME_KEYS = ["game", "kind", "title", "rules_version", "phase", "to_move", "result", "options",
             "created", "updated", "deadline", "players"]
GAME = " and ".join([
    typed(".game", NUM), typed(".kind", STR), typed(".title", STR, "null"),
    typed(".rules_version", NUM),
    '(.phase | IN("invited", "active", "finished", "cancelled"))',
    typed(".to_move", STR, "null"), typed(".result", STR, "null"), typed(".options", STR),
    typed(".created", NUM), typed(".updated", NUM), typed(".deadline", NUM, "null"),
    "(.players | type == \"array\" and length >= 2 and all(.[]; %s))" % PLAYER])
ENTRY = "(%s and %s)" % (keys_are(["seq", "time", "kind", "seat", "by", "text", "dice", "hash"]),
                         " and ".join([typed(".seq", NUM), typed(".time", NUM),
                                       typed(".kind", STR), typed(".seat", NUM, "null"),
                                       typed(".by", STR, "null"), typed(".text", STR),
                                       typed(".dice", STR, "null"),
                                       '(.hash | test("^[0-9a-f]{64}$"))']))
GAMES_DOC = "%s and %s and .what == \"games\" and (.games | all(.[]; %s and %s))" % (
    HEAD, keys_are(["tabula_json", "what", "games"]), keys_are(GAME_KEYS), GAME)
SHOW_DOC = ("%s and %s and .what == \"show\" and %s and %s and %s and %s and "
            "(.journal | type == \"array\" and length > 0 and all(.[]; %s))") % (
    HEAD, keys_are(["tabula_json", "what"] + GAME_KEYS + ["position", "board", "journal"]),
    GAME, typed(".position", STR, "null"), typed(".board", STR, "null"),
    '((.position == null) == (.board == null))', ENTRY)
PUBLIC_PLAYER = '(%s and %s and %s and (.name | test("^([A-Z0-9]\\\\. ?)*$")))' % (
    keys_are(["side", "name"]), typed(".side", STR), typed(".name", STR))
PUBLIC_KEYS = ["game", "kind", "title", "phase", "result", "status", "players", "page", "json"]
PUBLIC = " and ".join([
    typed(".game", NUM), typed(".kind", STR), typed(".title", STR), typed(".phase", STR),
    typed(".result", STR, "null"), typed(".status", STR),
    "(.players | length >= 2 and all(.[]; %s))" % PUBLIC_PLAYER,
    '(.page == "game-\\(.game).html")', '(.json == "game-\\(.game).json")'])
INDEX_DOC = ("%s and %s and .what == \"site-index\" and %s and (.games | all(.[]; %s and %s))"
             % (HEAD, keys_are(["tabula_json", "what", "referee_key", "games"]),
                '(.referee_key | test("^[^+@ ]+\\\\+[0-9a-f]{8}\\\\+[A-Za-z0-9+/]{44}$"))',
                keys_are(PUBLIC_KEYS), PUBLIC))
POSITION = "(%s and %s)" % (keys_are(["step", "label", "side", "move", "position"]),
                            " and ".join([typed(".step", NUM), typed(".label", STR),
                                          typed(".side", STR, "null"),
                                          typed(".move", STR, "null"), typed(".position", STR)]))
PAGE_DOC = ("%s and %s and .what == \"site-game\" and %s and "
            "(.positions | length > 0 and all(.[]; %s)) and %s and %s and %s and %s and %s") % (
    HEAD, keys_are(["tabula_json", "what"] + PUBLIC_KEYS +
                   ["positions", "history", "dice", "record", "record_format", "checkpoint"]),
    PUBLIC, POSITION, typed(".history", STR), typed(".dice", STR, "null"),
    '(.game as $g | .record | startswith("game-\\($g)."))', typed(".record_format", STR),
    # docs/history-protocol.md, "Witnesses": the signed note, origin NAME/game/G
    '(.game as $g | .checkpoint | test("^[^@\\\\n]+/game/\\($g)\\\\n[0-9]+\\\\n[A-Za-z0-9+/=]+'
    '\\\\n\\\\n\u2014 [^@ ]+ [A-Za-z0-9+/=]+\\\\n$"))')


# a root (32 bytes) or a signature (4 + 64 bytes) in base64, and the verifier
# key's id and key (docs/history-protocol.md, "Checkpoints")
UNSIGNED = re.compile(r"(?:[A-Za-z0-9+/]{43}=|[A-Za-z0-9+/]{91}=)"
                      r"|\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}")


class Table(bymail.Table):
    """Players whose entropy words name nobody: a player's own words are
    published as written (docs/dice-protocol.md), and bymail's name them."""

    def deliver(self, sender, body, reply=None):
        if body.startswith("accept\nentropy:"):
            body = "accept\nentropy: lucky words %d" % self.n
        return super().deliver(sender, body, reply)


def games_text(doc):
    """`tabula games` as admin.c writes it, from the JSON."""
    rows = [["game", "kind", "phase", "to move", "players", "result"]]
    for g in doc["games"]:
        players = ", ".join("%s %s%s" % (p["side"] or "-", p["address"],
                                         "" if p["accepted"] else " (invited)")
                            for p in g["players"])
        rows.append([str(g["game"]), g["kind"], g["phase"],
                     (g["to_move"] or "-") if g["phase"] == "active" else "-", players,
                     g["result"] or ""])
    width = [max(len(r[c]) for r in rows) for c in range(6)]
    out = ""
    for r in rows:
        last = 5
        while last > 0 and not r[last]:
            last -= 1
        out += "".join(r[c].ljust(width[c]) + "  " for c in range(last)) + r[last] + "\n"
    return out


def show_text(d):
    """`tabula show N` as admin.c writes it, from the JSON."""
    out = "game %d: %s (rules v%d), %s%s%s\n" % (d["game"], d["title"], d["rules_version"],
                                                d["phase"], ", " if d["result"] else "",
                                                d["result"] or "")
    for p in d["players"]:
        out += "  %s: %s%s\n" % (p["side"], p["address"], "" if p["accepted"] else " (invited)")
    if d["board"] is not None:
        out += "\n%s\nposition: %s\n" % (d["board"], d["position"])
    out += "\njournal:\n"
    for e in d["journal"]:
        out += "  %3d %-10s %-7s %s%s%s\n" % (e["seq"], e["kind"], e["by"], e["text"],
                                              "  " if e["dice"] else "", e["dice"] or "")
    return out


def main():
    work = tempfile.mkdtemp(prefix="tabula-json-")
    t = Table(TABULA, os.path.join(work, "t"))
    rng = random.Random(4242)
    played = {}
    for i, game in enumerate(GAMES):
        a = "alice.liddell%d@hermes%d.wonder.example" % (i, i)
        b = "bob.dylan%d@pc%d.music.example" % (i, i)
        played[game] = (bymail.play(t, game, a, b, rng, 3), a, b)
    # a finished, rated game, and one the operator decided with a reason
    # in UTF-8 (journaled as written, shown by show --json as written)
    num, a, b = played["chess"]
    bymail.resign(t, num, a, b)
    reason = "Zeitüberschreitung — « vu » 対局"
    t.run("adjudicate", str(played["checkers"][0]), "1-0", "--reason", reason)
    # an invitation nobody accepted: a game with no board yet
    t.invite("carol.jones@athena.old.example", "new chess with dave.smith@zeus.old.example")
    # a round robin (standings)
    t.run("tournament", "new", "chess", "spring", "p1@x.example", "p2@x.example",
          "p3@x.example")

    # ---- games ----
    p = t.run("games", "--json")
    doc = p.stdout.decode()
    ok, why = jq(GAMES_DOC, doc)
    check("games --json: the documented shape (jq)", ok, why + doc[:1500])
    games = json.loads(doc)["games"]
    kinds = {g["kind"] for g in games}
    check("games --json lists a game of each of the thirteen systems",
          set(GAMES) <= kinds and len(games) >= len(GAMES) + 1 + 3, sorted(kinds))
    text = t.run("games").stdout.decode()
    check("games: the text is the JSON's data in the text's columns, byte for byte",
          text == games_text(json.loads(doc)), "\n".join([text, games_text(json.loads(doc))]))
    again = t.run("games", "--json").stdout.decode()
    check("games --json: the same bytes twice (stable key order)", again == doc)

    # ---- show, every game ----
    for g in games:
        n = str(g["game"])
        p = t.run("show", n, "--json")
        doc = p.stdout.decode()
        ok, why = jq(SHOW_DOC, doc)
        check("show %s --json (%s): the documented shape (jq)" % (n, g["kind"]), ok,
              why + doc[:1500])
        d = json.loads(doc)
        text = t.run("show", n).stdout.decode()
        check("show %s (%s): the text is the JSON's data, byte for byte" % (n, g["kind"]),
              text == show_text(d), "\n".join([text, show_text(d)]))
        same = {k: g[k] for k in GAME_KEYS}
        check("show %s --json: the game's fields are those games --json lists" % n,
              {k: d[k] for k in GAME_KEYS} == same)
    d = json.loads(t.run("show", str(played["checkers"][0]), "--json").stdout.decode())
    check("show --json: the operator's UTF-8 reason as written",
          any(e["kind"] == "reason" and e["text"] == reason for e in d["journal"]),
          d["journal"][-3:])
    invited = [g for g in games if g["phase"] == "invited"]
    d = json.loads(t.run("show", str(invited[0]["game"]), "--json").stdout.decode())
    check("show --json of an invitation: no position, no board, a seat not accepted",
          d["position"] is None and d["board"] is None and
          [p["accepted"] for p in d["players"]] == [True, False], d)

    # ---- exit statuses as without --json ----
    for args in (["show", "999"], ["show", "0"], ["ratings", "nosuchgame"],
                 ["tournament", "show", "nosuch"], ["games", "extra"]):
        plain = t.run(*args, check=False)
        js = t.run(*(args + ["--json"]), check=False)
        check("%s: exit %d with --json as without, nothing on stdout" % (
            " ".join(args), plain.returncode),
            plain.returncode == js.returncode and plain.returncode != 0 and js.stdout == b"",
            (plain.returncode, js.returncode, js.stdout[:200]))
    p = t.run("tournament", "new", "chess", "autumn", "p1@x.example", "p2@x.example",
              "p3@x.example", "--json", check=False)
    check("tournament new --json: a usage error (64), nothing made",
          p.returncode == 64 and b"not new" in p.stderr, p.stderr)

    # ---- ratings ----
    doc = t.run("ratings", "--json").stdout.decode()
    ok, why = jq(HEAD + ' and .what == "ratings" and %s and .kind == null and '
                 '(.ratings | length >= 2 and all(.[]; %s and %s))' % (
                     keys_are(["tabula_json", "what", "kind", "ratings"]),
                     keys_are(["kind", "rank", "address", "rating", "rd", "volatility", "games",
                               "won", "drawn", "lost"]),
                     " and ".join([typed(".kind", STR), typed(".rank", NUM),
                                   typed(".address", STR)] +
                                  [typed("." + k, NUM) for k in ("rating", "rd", "volatility",
                                                                 "games", "won", "drawn",
                                                                 "lost")])), doc)
    check("ratings --json: the documented shape (jq), the resigned game's two players", ok,
          why + doc[:1500])
    text = t.run("ratings").stdout.decode()
    rows = re.findall(r"^\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+(\d+)\s+(\d+)"
                      r"\s+(\d+)\s+(\S+)$", text, re.M)
    rs = json.loads(doc)["ratings"]
    check("ratings: the text's rows are the JSON's",
          [(str(r["rank"]), "%.2f" % r["rating"], r["address"]) for r in rs] ==
          [(x[0], x[1], x[8]) for x in rows], (text, rs))
    doc = t.run("ratings", "chess", "--json").stdout.decode()
    check("ratings chess --json: kind named, only chess",
          jq('.kind == "chess" and all(.ratings[]; .kind == "chess")', doc)[0], doc)

    # ---- tournament show ----
    doc = t.run("tournament", "show", "spring", "--json").stdout.decode()
    ok, why = jq(HEAD + ' and .what == "standings" and %s and .name == "spring" and '
                 '.kind == "chess" and .cycles == 1 and .phase == "invited" and .games == 3 and '
                 '.decided == 0 and .cancelled == 0 and (.standings | length == 3 and '
                 'all(.[]; %s and (.crosstable | length == 3) and '
                 '.crosstable[.number - 1] == "**")) and '
                 '([.players[].number] == [1, 2, 3]) and '
                 '([.players[].address] == ["p1@x.example", "p2@x.example", "p3@x.example"])' % (
                     keys_are(["tabula_json", "what", "tournament", "name", "kind", "cycles",
                               "phase", "games", "decided", "cancelled", "standings",
                               "players"]),
                     keys_are(["place", "number", "address", "points", "sonneborn_berger",
                               "crosstable"])), doc)
    check("tournament show --json: the documented shape (jq)", ok, why + doc[:2000])
    tid = json.loads(doc)["tournament"]
    check("tournament show N --json: by number as by name",
          t.run("tournament", "show", str(tid), "--json").stdout.decode() == doc)
    text = t.run("tournament", "show", "spring").stdout.decode()
    check("tournament show: the text's heading says the JSON's counts",
          text.startswith("tournament %d (spring): chess, single round robin, invited; "
                          "0 of 3 games decided\n" % tid), text)

    # ---- check-config ----
    with open(t.conf, "a") as f:
        f.write("smtp_password=hunter2\nhelp_url=https://example.org/r\u00e8gles\n")
    doc = t.run("check-config", "--json").stdout.decode()
    ok, why = jq(HEAD + ' and .what == "check-config" and %s and (.file | type == "string") and '
                 '(.origin | type == "string") and all(.options[]; %s and '
                 '(if .hidden then .value == null else (.value | type | IN("string", "number")) '
                 'end) and (.default | type | IN("string", "number")) and '
                 '(.help | type == "string"))' % (
                     keys_are(["tabula_json", "what", "file", "origin", "options"]),
                     keys_are(["name", "value", "hidden", "default", "help"])), doc)
    check("check-config --json: the documented shape (jq)", ok, why + doc[:1500])
    opts = {o["name"]: o for o in json.loads(doc)["options"]}
    text = t.run("check-config").stdout.decode()
    check("check-config: the text's options are the JSON's, in its order",
          re.findall(r"^(\w+) = ", text, re.M) == list(opts), text[:500])
    check("check-config --json: a password is hidden, never shown",
          opts["smtp_password"]["hidden"] is True and opts["smtp_password"]["value"] is None
          and "hunter2" not in doc, opts["smtp_password"])
    check("check-config --json: numbers as numbers, UTF-8 as written",
          opts["rate_limit"]["value"] == 0 and opts["help_url"]["value"] ==
          "https://example.org/r\u00e8gles", (opts["rate_limit"], opts["help_url"]))

    # ---- the web view ----
    site = os.path.join(work, "site")
    t.run("site", site)
    files = sorted(os.listdir(site))
    texts = {f: open(os.path.join(site, f), encoding="utf-8").read() for f in files
             if f.endswith(".json")}
    ok, why = jq(INDEX_DOC, texts.get("index.json", ""))
    check("site: index.json, the documented shape (jq)", ok, why + texts.get("index.json", "")[:1500])
    index = json.loads(texts["index.json"])["games"]
    check("site: index.json lists the thirteen systems' games, pages beside it",
          set(GAMES) <= {g["kind"] for g in index} and
          all(g["page"] in files and g["json"] in files for g in index),
          [g["game"] for g in index])
    html = open(os.path.join(site, "index.html"), encoding="utf-8").read()
    check("site: index.json and index.html list the same games",
          re.findall(r'href="game-(\d+)\.html"', html) == [str(g["game"]) for g in index])
    banned = set()
    for _, a, b in list(played.values()) + [(0, "carol.jones@athena.old.example",
                                         "dave.smith@zeus.old.example")]:
        for who in (a, b):
            local, domain = who.split("@")
            banned.update({who, local, domain, domain.split(".")[0]})
    for g in index:
        doc = texts[g["json"]]
        ok, why = jq(PAGE_DOC, doc)
        check("site: %s (%s), the documented shape (jq)" % (g["json"], g["kind"]), ok,
              why + doc[:1500])
        d = json.loads(doc)
        shown = json.loads(t.run("show", str(g["game"]), "--json").stdout.decode())
        # a board after the start and after every move (the page's list);
        # the last is the game's own when no roll came after the last move
        steps = [e for e in shown["journal"] if e["kind"] in ("start", "move")]
        last_ok = (d["positions"][-1]["position"] == shown["position"]
                   or shown["journal"][-1]["kind"] != "move")
        check("site: %s, a position after the start and each move, the last the game's"
              % g["json"], len(d["positions"]) == len(steps) and last_ok and
              [p["move"] is None for p in d["positions"]] ==
              [e["kind"] == "start" for e in steps] and {k: d[k] for k in PUBLIC_KEYS} == g,
              (d["positions"][-1], shown["position"], len(d["positions"]), len(steps)))
    # the signed checkpoints' roots and signatures and the referee's key are
    # base64 of random-looking bytes (docs/history-protocol.md, "Witnesses"):
    # a short host ("pc1") can occur in them by chance, so they are taken out
    # before the words are looked for (the checkpoint's names are still read)
    def unsigned(text):
        return UNSIGNED.sub("", text)
    for f, s in texts.items():
        hits = sorted(w for w in banned if w.lower() in unsigned(s).lower())
        check("site: %s names no player (no @, no address, local part or host)" % f,
              "@" not in s and not hits, hits[:8])

    # ---- check: agrees, then a damaged game ----
    plain, js = t.run("check", check=False), t.run("check", "--json", check=False)
    doc = js.stdout.decode()
    ok, why = jq(HEAD + ' and .what == "check" and %s and .ok == true and .problems == [] and '
                 '.store.problems == 0 and .store.advice == null and .games.bad == 0 and '
                 '.games.checked == %d and .matches.error == null and .ratings.bad == 0 and '
                 '.state.problems == 0' % (
                     keys_are(["tabula_json", "what", "ok", "store", "games", "matches",
                               "ratings", "state", "problems"]), len(games)), doc)
    check("check --json on a good store: ok, exit 0 as without --json", ok and
          plain.returncode == js.returncode == 0, why + doc[:1500])
    bad = played["racingkings"][0]
    db = sqlite3.connect(os.path.join(work, "t", "db"))
    db.execute("UPDATE games SET state = state || 'x' WHERE id = ?", (bad,))
    db.commit()
    db.close()
    plain, js = t.run("check", check=False), t.run("check", "--json", check=False)
    doc = js.stdout.decode()
    ok, why = jq('.ok == false and .games.bad >= 1 and ([.problems[] | select(.about == "game")'
                 ' | .number] | unique == [%d]) and all(.problems[]; %s and %s and %s)' % (
                     bad, keys_are(["about", "number", "text"]), typed(".number", NUM, "null"),
                     typed(".text", STR)), doc)
    check("check --json on a damaged game: the problem named, exit 1 as without --json",
          ok and plain.returncode == js.returncode == 1, why + doc[:1500])
    prob = json.loads(doc)["problems"][0] if ok else {}
    check("check: the text's line is the JSON's problem",
          "game %d: %s\n" % (bad, prob.get("text")) in plain.stdout.decode(),
          plain.stdout.decode())
    # a row that is not UTF-8 (written by hand, an old tool)
    db = sqlite3.connect(os.path.join(work, "t", "db"))
    db.execute("UPDATE games SET result = CAST(X'41FF42C3' AS TEXT) WHERE id = ?",
               (played["doublemove"][0],))
    db.commit()
    db.close()
    p = t.run("games", "--json")
    ok, why = jq(GAMES_DOC, p.stdout.decode())
    d = json.loads(p.stdout.decode())
    res = [g["result"] for g in d["games"] if g["game"] == played["doublemove"][0]]
    check("games --json on a row that is not UTF-8: still JSON, U+FFFD for each bad byte",
          ok and res == ["A\ufffdB\ufffd"], (why, res))

    return finish(work)


if __name__ == "__main__":
    sys.exit(main())
