#!/usr/bin/env python3
"""Plays the README's walkthrough through the real tabula binary and prints
every mail both ways, so the README shows what tabula actually sends.

usage: scripts/readme-walkthrough.py TABULA

A game of chess from invitation to result (the inviter's one-time
confirmation of her address first), written the way mail clients
write: a greeting and a signature, a phone's "Sent from", the quoted mail
below the answer, a chatty line beside the move, a refused move, a draw
offer with a move. Uses the mail client of tests/mailcases.py; nothing is
kept (a fresh directory each time, removed at the end). Keys and
Message-IDs are random, so two runs differ only in those.
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import mailcases  # noqa: E402

# (who, body, whose reply to show); the first mail is new, the rest replies
STEPS = [
    ("alice@example.org", "Subject: a game?\nHi,\n\nnew chess with bob@example.org\n\n"
     "Thanks!\n-- \nAlice Liddell\nhttps://alice.example.org", "alice@example.org"),
    # A first `new` is confirmed by its sender before anyone is invited
    ("alice@example.org", "confirm", "bob@example.org"),
    ("bob@example.org", "Accept\n\nLooking forward to it!\n\nSent from my iPhone",
     "alice@example.org"),
    ("alice@example.org", "e4", None),
    ("bob@example.org", "e5\n\n-- \nBob", None),
    ("alice@example.org", "Bc4 #2", None),
    ("bob@example.org", "Nf7", "bob@example.org"),
    ("bob@example.org", "Nc6", None),
    ("alice@example.org", "Qh5\n\nYour move, Bob!", None),
    ("bob@example.org", "Nf6\ndraw offer", "alice@example.org"),
    ("alice@example.org", "Qxf7#", "bob@example.org"),
]


def headers_of(raw):
    text = raw.decode().replace("\r\n", "\n")
    head, body = text.split("\n\n", 1)
    keep = [h for h in head.split("\n") if h.split(":")[0] in ("From", "To", "Subject")]
    return "\n".join(keep) + "\n\n" + body.rstrip("\n")


def main():
    work = tempfile.mkdtemp(prefix="tabula-walkthrough-")
    conv = mailcases.Conversation(sys.argv[1], work)
    try:
        for i, (who, body, show) in enumerate(STEPS):
            raw = conv.compose(who, body) if i == 0 else conv.reply(who, body)
            print("==== %s writes:\n%s\n" % (who, headers_of(raw)))
            conv.deliver(raw)
            print("==== tabula sends %d mail(s): %s" % (
                len(conv.step_mails), ", ".join("%s (%s)" % (m["to"], m["subject"])
                                                for m in conv.step_mails)))
            for m in conv.step_mails:
                if m["to"] == show:
                    print("---- to %s:\nSubject: %s\nReply-To: %s\n\n%s\n" % (
                        m["to"], m["subject"], m["reply-to"], m["body"].rstrip("\n")))
        print("==== tabula export 1:\n%s" % conv.run("export", "1").stdout.decode())
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
