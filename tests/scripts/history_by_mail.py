#!/usr/bin/env python3
"""Games by mail whose whole record each player checks with tools/tabula-verify
(docs/history-protocol.md), and the frauds it must catch.

usage: history_by_mail.py TABULA SOURCE_DIR

Checks:
  - a game of every game system, played by mail through tabula deliver,
    verifies from each player's mails alone (signatures, proofs, dice, every
    move replayed by tools/tabula-replay) and from both mailboxes together;
  - `tabula key` prints the key the mails name, the same at every call;
  - a mail to an observer carries no history, and a player's prepared line
    reaches the opponent sealed (never its words), yet verifies;
  - tampering, each caught and the first mail that disagrees named:
    a past move edited in the store with every journal hash recomputed;
    an entry removed from the store the same way; a roll changed in a mail;
    two players told different histories (a split view: each mailbox alone
    verifies, both together do not); an old mail's checkpoint replaced by one
    the referee's key never signed;
  - a game across `tabula key rotate` verifies with both keys, not the old alone.
Prints "N passed, M failed".
"""
import base64
import hashlib
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

TABULA, SRC = sys.argv[1], sys.argv[2]
VERIFY = os.path.join(SRC, "tools", "tabula-verify")
REPLAY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(TABULA))), "tools",
                      "tabula-replay")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import bymail  # noqa: E402
from testkit import check, finish  # noqa: E402

A, B = "alice@example.org", "bob@example.org"
SYSTEMS = ["chess", "checkers", "backgammon", "bgchess", "lagbgchess", "backtoback",
           "tableschess", "chessgammon", "chessgammon4x8", "doublemove", "racingkings",
           "bodlaender"]


def key_of(t):
    return t.run("key").stdout.decode().strip()


def mailbox(t, who, into, only=None):
    """The mails tabula wrote to `who` saved as files in folder `into` (a
    player's saved mails); only: a list of messages to keep (else all)."""
    os.makedirs(into, exist_ok=True)
    n = 0
    for msg in (only if only is not None else t.mails):
        if str(msg["To"]).strip("<> ").lower() != who:
            continue
        n += 1
        with open(os.path.join(into, "%04d.eml" % n), "wb") as f:
            f.write(msg.raw)
    return into


def verify(key, *paths):
    p = subprocess.run([sys.executable, VERIFY, "--key", key, "--replay", REPLAY] + list(paths),
                       capture_output=True, timeout=900)
    return p.returncode, p.stdout.decode() + p.stderr.decode()


def subject(path):
    with open(path, "rb") as f:
        m = re.search(rb"^Subject: (.*)$", f.read(), re.M)
    return re.sub(r"^\[tabula [^]]*\] *", "", m.group(1).decode()) if m else ""


# ---- the store behind tabula's back: the journal's own chain recomputed ----

def rechain(db, game):
    """Recomputes every hash of game's journal (store/journal.c's rule), as
    an operator covering an edit would, and drops the snapshot."""
    con = sqlite3.connect(db)
    rows = con.execute("SELECT seq, time, seat, kind, text, dice FROM journal WHERE game = ?"
                       " ORDER BY seq", (game,)).fetchall()
    prev = "0" * 64
    for seq, time, seat, kind, text, dice in rows:
        data = "tabula-journal-1\n%s\n%d\n%d\n%d\n%d\n%s\n%s\n%s\n" % (
            prev, game, seq, time, seat, kind, text, dice)
        h = hashlib.sha256(data.encode()).hexdigest()
        con.execute("UPDATE journal SET prev_hash = ?, hash = ? WHERE game = ? AND seq = ?",
                    (prev, h, game, seq))
        prev = h
    con.execute("UPDATE games SET snapshot = NULL WHERE id = ?", (game,))
    con.commit()
    con.close()


def play_moves(t, num, moves):
    for i, mv in enumerate(moves):
        who = A if i % 2 == 0 else B
        t.deliver(who, mv, reply=t.game_last[(who, num)])


def start(t, game="chess"):
    t.invite(A, "new %s with %s" % (game, B))
    invite = t.last[B]
    num = int(re.search(r"\[tabula (\d+)", str(invite["Subject"])).group(1))
    t.deliver(B, "accept", reply=invite)
    return num


def every_system(work):
    t = bymail.Table(TABULA, os.path.join(work, "all"))
    rng = random.Random(11)
    key = None
    for i, game in enumerate(SYSTEMS):
        a, b = "p%d@example.org" % i, "q%d@example.org" % i
        num = bymail.play(t, game, a, b, rng, 10)
        if key is None:
            key = key_of(t)
            check("tabula key: NAME+KEYID+KEY, the same at every call",
                  re.fullmatch(r"example\.org/referee\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}", key)
                  and key_of(t) == key, key)
        if not bymail.over(t.game_last[(a, num)]):
            bymail.resign(t, num, a, b)
        boxes = []
        for who in (a, b):
            box = mailbox(t, who, os.path.join(work, "all-%s-%s" % (game, who)))
            boxes.append(box)
            rc, out = verify(key, box)
            check("%s: %s's mails alone verify, every move replayed" % (game, who),
                  rc == 0 and "every move replays" in out and "game %d:" % num in out, out)
            if game in ("backgammon", "bgchess", "tableschess", "lagbgchess"):
                check("%s: %s's mails: the dice verify too" % (game, who),
                      "rolls verifies" in out, out)
        rc, out = verify(key, *boxes)
        check("%s: both players' mails together verify" % game, rc == 0, out)
    qp = [str(m["Subject"]) for m in t.mails
          if str(m.get_body(preferencelist=("plain",))["Content-Transfer-Encoding"]) != "7bit"]
    check("the Record lines keep every text part 7-bit (no quoted-printable soft breaks)",
          not qp, qp[:5])
    first = [m for m in t.mails if str(m["To"]).strip("<> ").lower() == "q0@example.org"][0]
    check("the first mail to a player names the referee's key",
          "Record key: %s" % key in bymail.text(first), bymail.text(first)[-1500:])


def observers_and_sealed(work):
    t = bymail.Table(TABULA, os.path.join(work, "obs"))
    num = start(t)
    key = key_of(t)
    t.deliver("carol@example.org", "observe %d" % num)
    play_moves(t, num, ["e4", "e5"])
    # alice prepares a line with a branch bob must never see
    t.deliver(A, "Nf3\nif Nc6 then Bb5\nif d6 then d4", reply=t.game_last[(A, num)])
    t.deliver(B, "Nc6", reply=t.game_last[(B, num)])
    to_carol = [m for m in t.mails if str(m["To"]).strip("<> ").lower() == "carol@example.org"]
    check("mails to an observer carry no history lines",
          to_carol and not any("Record " in bymail.text(m) for m in to_carol),
          to_carol and bymail.text(to_carol[-1]))
    to_bob = "\n".join(bymail.text(m) for m in t.mails
                       if str(m["To"]).strip("<> ").lower() == B)
    check("the opponent gets a prepared line sealed, never its words",
          "Record sealed: %d " % num in to_bob and "if Nc6" not in to_bob, to_bob[-2000:])
    to_alice = "\n".join(bymail.text(m) for m in t.mails
                         if str(m["To"]).strip("<> ").lower() == A)
    check("its owner gets it whole", 'conditional "if Nc6 then Bb5"' in to_alice,
          to_alice[-2000:])
    boxes = [mailbox(t, w, os.path.join(work, "obs-" + w)) for w in (A, B)]
    for box in boxes:
        rc, out = verify(key, box)
        check("with a sealed entry, %s verifies" % os.path.basename(box), rc == 0, out)
    rc, out = verify(key, *boxes)
    check("with a sealed entry, both mailboxes together verify", rc == 0, out)


OPENING = ["e4", "e5", "Nf3", "Nc6"]


def tamper_store(work, what):
    """A past move edited, or an entry removed, in the store, every hash
    recomputed; the next mail is the first that disagrees."""
    t = bymail.Table(TABULA, os.path.join(work, what))
    num = start(t)
    key = key_of(t)
    play_moves(t, num, OPENING)
    before = len(t.mails)
    db = os.path.join(t.root, "db")
    con = sqlite3.connect(db)
    if what == "edit":
        # 1. e4 becomes 1. e3: every later move stays legal
        seq = con.execute("SELECT seq FROM journal WHERE game = ? AND kind = 'move' AND text = 'e4'",
                          (num,)).fetchone()[0]
        con.execute("UPDATE journal SET text = 'e3' WHERE game = ? AND seq = ?", (num, seq))
    else:
        # bob's accept, gone; the entries after it moved up one
        seq = con.execute("SELECT seq FROM journal WHERE game = ? AND kind = 'accept'",
                          (num,)).fetchone()[0]
        con.execute("DELETE FROM journal WHERE game = ? AND seq = ?", (num, seq))
        top = con.execute("SELECT max(seq) FROM journal WHERE game = ?", (num,)).fetchone()[0]
        for s in range(seq + 1, top + 1):
            con.execute("UPDATE journal SET seq = seq - 1 WHERE game = ? AND seq = ?", (num, s))
    con.commit()
    con.close()
    rechain(db, num)
    check("%s: tabula check passes over the recomputed chain (only the players can tell)" % what,
          t.run("check", check=False).returncode in (0, 1))
    t.deliver(A, "Bc4", reply=t.game_last[(A, num)])
    after = t.mails[before:]
    first = [m for m in after if str(m["To"]).strip("<> ").lower() == A][0]
    box = mailbox(t, A, os.path.join(work, what + "-alice"))
    rc, out = verify(key, box)
    name = "%04d.eml" % len([m for m in t.mails[:t.mails.index(first) + 1]
                             if str(m["To"]).strip("<> ").lower() == A])
    check("%s: tabula-verify fails on alice's mails and names the first mail after it (%s)"
          % (what, name), rc == 1 and name in out, out)
    return out


def tamper_roll(work):
    """A roll changed in a saved mail: its entry is no longer the one signed."""
    t = bymail.Table(TABULA, os.path.join(work, "roll"))
    num = bymail.play(t, "backgammon", A, B, random.Random(5), 4)
    key = key_of(t)
    box = mailbox(t, A, os.path.join(work, "roll-alice"))
    for name in sorted(os.listdir(box)):
        path = os.path.join(box, name)
        with open(path, "rb") as f:
            raw = f.read()
        m = re.search(rb"(Record entry: %d \d+ \d+ -?\d+ roll \"[^\n]*?faces )(\d) (\d)" % num,
                      raw)
        if not m:
            continue
        # the mail as a player who wants another roll would show it: one
        # face changed in the entry
        other = b"1" if m.group(2) != b"1" else b"2"
        raw = raw[:m.start(2)] + other + raw[m.end(2):]
        with open(path, "wb") as f:
            f.write(raw)
        rc, out = verify(key, box)
        check("a roll changed in a mail: caught, that mail named (%s)" % name,
              rc == 1 and name in out and "not in the record" in out, out)
        return
    check("a roll changed in a mail: a mail showing a roll entry", False, "none found")


def split_view(work):
    """The store copied: alice is told bob played e5, bob that he played c5."""
    t = bymail.Table(TABULA, os.path.join(work, "split-a"))
    num = start(t)
    key = key_of(t)
    play_moves(t, num, ["e4"])
    shutil.copytree(t.root, os.path.join(work, "split-b"))
    u = bymail.Table(TABULA, os.path.join(work, "split-b"))
    u.n = t.n + 1000  # new Message-IDs: the copied store has seen the old ones
    u.collect()
    known = len(t.mails)
    t.deliver(B, "e5", reply=t.game_last[(B, num)])
    u.deliver(B, "c5", reply=u.game_last[(B, num)])
    alice = mailbox(t, A, os.path.join(work, "split-alice"))
    bob = mailbox(u, B, os.path.join(work, "split-bob"))
    check("split view: the referee's key is the same in both stores", key_of(u) == key)
    for box in (alice, bob):
        rc, out = verify(key, box)
        check("split view: %s alone verifies (each story holds alone)" % os.path.basename(box),
              rc == 0, out)
    rc, out = verify(key, alice, bob)
    later = [m for m in t.mails[known:] if str(m["To"]).strip("<> ").lower() == A] + \
        [m for m in u.mails[known:] if str(m["To"]).strip("<> ").lower() == B]
    check("split view: both mailboxes together fail, naming a mail of the fork",
          rc == 1 and ("split view" in out or "changed" in out), out)
    check("split view: the mail named is one sent after the fork",
          any(str(m["Subject"]).split("] ", 1)[-1] in out for m in later), out)


def forged_checkpoint(work):
    """An old mail's checkpoint replaced by one signed with another key."""
    t = bymail.Table(TABULA, os.path.join(work, "forged"))
    num = start(t)
    key = key_of(t)
    play_moves(t, num, OPENING)
    box = mailbox(t, A, os.path.join(work, "forged-alice"))
    name = sorted(os.listdir(box))[1]
    path = os.path.join(box, name)
    with open(path, "rb") as f:
        raw = f.read()
    # the root line: another root (a made-up history), the signature kept
    m = re.search(rb"Record checkpoint: ([A-Za-z0-9+/]{43}=)", raw)
    fake = base64.b64encode(hashlib.sha256(b"a history never signed").digest())
    raw = raw[:m.start(1)] + fake + raw[m.end(1):]
    with open(path, "wb") as f:
        f.write(raw)
    rc, out = verify(key, box)
    check("a checkpoint the key never signed: caught, that mail named (%s)" % name,
          rc == 1 and name in out and "not signed with the referee's key" in out, out)
    # and one signed, but by another key (cryptography, Debian's python3-cryptography)
    try:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    except ImportError:
        return
    with open(path, "rb") as f:
        raw = f.read()
    other = Ed25519PrivateKey.generate()
    origin = b"example.org/referee/game/%d" % num
    m = re.search(rb"Record checkpoint: (\d+)\r?\n", raw)
    body = origin + b"\n" + m.group(1) + b"\n" + fake + b"\n"
    kid = hashlib.sha256(b"example.org/referee\n\x01" + other.public_key().public_bytes_raw()
                         ).digest()[:4]
    sig = base64.b64encode(kid + other.sign(body))
    raw = re.sub(rb"Record signature: example.org/referee [A-Za-z0-9+/=]+",
                 lambda _: b"Record signature: example.org/referee " + sig, raw)
    with open(path, "wb") as f:
        f.write(raw)
    rc, out = verify(key, box)
    check("a checkpoint signed by another key: caught, that mail named",
          rc == 1 and name in out and "not signed with the referee's key" in out, out)


def rotation(work):
    """tabula key rotate: a game that spans it verifies with both keys, not
    with the old one alone (the first mail signed by the new key named)."""
    t = bymail.Table(TABULA, os.path.join(work, "rotate"))
    num = start(t)
    old = key_of(t)
    play_moves(t, num, ["e4", "e5"])
    new = t.run("key", "rotate").stdout.decode().strip()
    check("key rotate prints a new key, and key prints it after",
          new != old and key_of(t) == new and os.path.exists(os.path.join(t.root, "db.key.1")),
          (old, new))
    known = len([m for m in t.mails if str(m["To"]).strip("<> ").lower() == A])
    play_moves(t, num, ["Nf3", "Nc6"])
    box = mailbox(t, A, os.path.join(work, "rotate-alice"))
    p = subprocess.run([sys.executable, VERIFY, "--key", old, "--key", new, "--replay", REPLAY, box],
                       capture_output=True, timeout=300)
    check("a game across a rotation verifies with both keys", p.returncode == 0, p.stdout)
    rc, out = verify(old, box)
    check("... and not with the old key alone, the first mail signed by the new one named",
          rc == 1 and "%04d.eml" % (known + 1) in out and "not signed" in out, out)


def verify_module():
    """tools/tabula-verify loaded as a module: its own functions check the
    web view's checkpoint (a witness's check, docs/history-protocol.md)."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("tabula_verify", VERIFY)
    spec = importlib.util.spec_from_loader("tabula_verify", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def witness(work):
    """The web view publishes each game's signed checkpoint, the same note
    as the players' last mails carry, and index.json the referee's key:
    anyone can keep them and compare (docs/history-protocol.md, "Witnesses")."""
    import html
    import json
    tv = verify_module()
    t = bymail.Table(TABULA, os.path.join(work, "witness"))
    num = start(t)
    play_moves(t, num, ["e4", "e5", "Nf3"])
    key = key_of(t)
    site = os.path.join(work, "witness-site")
    t.run("site", site)
    with open(os.path.join(site, "index.json")) as f:
        index = json.load(f)
    check("index.json carries the referee's key", index.get("referee_key") == key,
          index.get("referee_key"))
    with open(os.path.join(site, "game-%d.json" % num)) as f:
        note = json.load(f).get("checkpoint") or ""
    with open(os.path.join(site, "game-%d.html" % num)) as f:
        page = f.read()
    m = re.search(r'<pre id="checkpoint"[^>]*>(.*?)</pre>', page, re.S)
    shown = html.unescape(m.group(1)) if m else None
    check("the game's page shows the checkpoint of its game-N.json", shown == note, (shown, note))
    name, public = tv.parse_vkey(index.get("referee_key") or "")
    signed = tv.check_note(note.encode(), name, public)
    check("the published checkpoint verifies with the published key (tabula-verify's check_note)",
          signed is not None and signed.split(b"\n")[0] == b"example.org/referee/game/%d" % num,
          note)
    lines = note.split("\n")
    wrong = "\n".join(lines[:1] + [str(int(lines[1]) + 1)] + lines[2:])  # the size changed
    check("... and a changed one does not", tv.check_note(wrong.encode(), name, public) is None,
          wrong)
    check("no address in the published checkpoint", "@" not in note, note)
    for who in (A, B):
        last = [msg for msg in t.mails if str(msg["To"]).strip("<> ").lower() == who][-1]
        blocks = tv.blocks_of(tv.Mail(who, last))
        mailed = b"\n".join(blocks[-1].note).decode() + "\n" if blocks else None
        check("the published checkpoint is the one in %s's last mail" % who, mailed == note,
              (mailed, note))


def main():
    work = tempfile.mkdtemp(prefix="tabula-history-")
    if not os.access(REPLAY, os.X_OK):
        check("tabula-replay is built beside tabula (%s)" % REPLAY, False)
        return finish(work)
    every_system(work)
    observers_and_sealed(work)
    tamper_store(work, "edit")
    tamper_store(work, "remove")
    tamper_roll(work)
    split_view(work)
    forged_checkpoint(work)
    rotation(work)
    witness(work)
    return finish(work)


if __name__ == "__main__":
    sys.exit(main())
