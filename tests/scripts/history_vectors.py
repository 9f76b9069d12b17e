#!/usr/bin/env python3
"""docs/history-protocol.md's test vectors, reproduced by implementations
other than the referee's C (tests/unit/store/test_history.c and
tests/unit/referee/test_history_note.c check the C against the same text).

usage: history_vectors.py TABULA SOURCE_DIR

- the tree's roots and proofs: a few lines of RFC 9162 §2.1 written here,
  and tools/tabula-verify's functions, each against the document's tables;
- every proof of the verifier made and checked for trees up to 20 leaves,
  and refused once changed;
- Ed25519: RFC 8032 §7.1's TEST 1 to 3 by the verifier's own pure-Python
  Ed25519 and by Python's `cryptography` (Debian's python3-cryptography);
- the key and the checkpoint of the document: the public key, key ID and
  verifier key made by `cryptography` from the seed, the checkpoint's
  signature made by it byte for byte, and accepted by the verifier.
Prints "N passed, M failed".
"""
import base64
import hashlib
import os
import re
import subprocess
import sys
import tempfile
from importlib.machinery import SourceFileLoader

TABULA, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from testkit import check, finish  # noqa: E402

V = SourceFileLoader("tabula_verify", os.path.join(SRC, "tools", "tabula-verify")).load_module()
DOC = open(os.path.join(SRC, "docs", "history-protocol.md"), encoding="utf-8").read()

# ---- a second tree, written from RFC 9162 §2.1 alone ----


def h(b):
    return hashlib.sha256(b).digest()


def tree(d):
    if not d:
        return h(b"")
    if len(d) == 1:
        return h(b"\x00" + d[0])
    k = 1 << ((len(d) - 1).bit_length() - 1)
    return h(b"\x01" + tree(d[:k]) + tree(d[k:]))


def path(m, d):
    if len(d) <= 1:
        return []
    k = 1 << ((len(d) - 1).bit_length() - 1)
    return path(m, d[:k]) + [tree(d[k:])] if m < k else path(m - k, d[k:]) + [tree(d[:k])]


def subproof(m, d, b):
    if m == len(d):
        return [] if b else [tree(d)]
    k = 1 << ((len(d) - 1).bit_length() - 1)
    if m <= k:
        return subproof(m, d[:k], b) + [tree(d[k:])]
    return subproof(m - k, d[k:], False) + [tree(d[:k])]


def main():
    data = [bytes.fromhex(x) for x in
            ["", "00", "10", "2021", "3031", "40414243", "5051525354555657",
             "606162636465666768696a6b6c6d6e6f"]]
    check("the document names RFC 6962's eight leaves",
          "`606162636465666768696a6b6c6d6e6f`" in DOC and "`5051525354555657`" in DOC)
    roots = dict((int(n), r) for n, r in re.findall(r"^\| (\d) \| `([0-9a-f]{64})` \|$", DOC, re.M))
    check("the document has the roots of sizes 0 to 8", sorted(roots) == list(range(9)), roots)
    leaves = [V.leaf_hash(x) for x in data]
    for n, r in sorted(roots.items()):
        check("MTH of %d leaves: this file's tree" % n, tree(data[:n]).hex() == r)
        check("MTH of %d leaves: tabula-verify's" % n, V.mth(leaves[:n]).hex() == r)

    rows = re.findall(r"^\| (inclusion of leaf (\d) in size (\d)|consistency from (\d) to (\d)) \|"
                      r" ((?:`[0-9a-f]{64}` ?)+) \|$", DOC, re.M)
    check("the document has six proofs", len(rows) == 6, rows)
    for what, leaf, size, m, n, hashes in rows:
        want = re.findall(r"[0-9a-f]{64}", hashes)
        if leaf:
            mine = [x.hex() for x in path(int(leaf), data[:int(size)])]
            theirs = [x.hex() for x in V.inclusion_path(int(leaf), leaves[:int(size)])]
            ok = V.verify_inclusion(leaves[int(leaf)], int(leaf), int(size),
                                    [bytes.fromhex(x) for x in want], bytes.fromhex(roots[int(size)]))
        else:
            mine = [x.hex() for x in subproof(int(m), data[:int(n)], True)]
            theirs = [x.hex() for x in V.consistency_proof(int(m), leaves[:int(n)])]
            ok = V.verify_consistency(int(m), int(n), bytes.fromhex(roots[int(m)]),
                                      bytes.fromhex(roots[int(n)]), [bytes.fromhex(x) for x in want])
        check("%s: this file's" % what, mine == want, mine)
        check("%s: tabula-verify's, and it verifies" % what, theirs == want and ok, theirs)

    # every proof up to 20 leaves, and a changed one refused
    many = [bytes([i]) for i in range(20)]
    ml = [V.leaf_hash(x) for x in many]
    bad = 0
    for n in range(1, 21):
        r = V.mth(ml[:n])
        for i in range(n):
            p = V.inclusion_path(i, ml[:n])
            bad += not V.verify_inclusion(ml[i], i, n, p, r)
            if p:
                bad += V.verify_inclusion(ml[i], i, n, [p[0][::-1]] + p[1:], r)
        for m in range(1, n + 1):
            p = V.consistency_proof(m, ml[:n])
            bad += not V.verify_consistency(m, n, V.mth(ml[:m]), r, p)
            if m < n:
                bad += V.verify_consistency(m, n, V.mth(ml[:m - 1]) if m > 1 else h(b"x"), r, p)
    check("every inclusion and consistency proof up to 20 leaves holds, and fails once changed",
          bad == 0, bad)

    m = re.search(r"the leaf data\n`(.*?)`\nand the leaf hash\n`([0-9a-f]{64})`", DOC, re.S)
    check("the document's leaf", m)
    leaf = V.leaf_data(7, 1, 1795862713, 0, "create", b"new chess by alice@example.org", b"")
    check("the leaf data is the document's", leaf == m.group(1).encode().decode(
        "unicode_escape").encode(), leaf)
    check("the leaf hash is the document's", h(b"\x00" + leaf).hex() == m.group(2))

    # Ed25519, RFC 8032 §7.1 TEST 1-3 (public key, message, signature)
    rfc = [("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e3970"
            "1cf9b46bd25bf5f0595bbe24655141438e7a100b"),
           ("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
            "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613"
            "d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
           ("fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
            "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760"
            "984dc6594a7c15e9716ed28dc027beceea1ec40a")]
    try:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import (Ed25519PrivateKey,
                                                                      Ed25519PublicKey)
        from cryptography.exceptions import InvalidSignature
    except ImportError:
        check("python3-cryptography is installed (scripts/deps.sh)", False)
        return finish()
    for i, (pub, msg, sig) in enumerate(rfc, 1):
        pub, msg, sig = bytes.fromhex(pub), bytes.fromhex(msg), bytes.fromhex(sig)
        check("RFC 8032 TEST %d: tabula-verify's Ed25519 accepts it" % i,
              V.ed25519_verify(pub, msg, sig))
        check("RFC 8032 TEST %d: ... and refuses it with one bit changed" % i,
              not V.ed25519_verify(pub, msg + b"x", sig)
              and not V.ed25519_verify(pub, msg, sig[:-1] + bytes([sig[-1] ^ 1])))
        try:
            Ed25519PublicKey.from_public_bytes(pub).verify(sig, msg)
            ok = True
        except InvalidSignature:
            ok = False
        check("RFC 8032 TEST %d: cryptography accepts it" % i, ok)

    seed = bytes(range(32))
    key = Ed25519PrivateKey.from_private_bytes(seed)
    pub = key.public_key().public_bytes_raw()
    kid = h(b"example.org/referee\n\x01" + pub)[:4]
    check("the document's public key (cryptography)", "public key `%s`" % pub.hex() in DOC)
    check("the document's key ID", "key ID `%s`" % kid.hex() in DOC)
    vkey = "example.org/referee+%s+%s" % (kid.hex(), base64.b64encode(b"\x01" + pub).decode())
    check("the document's verifier key", "verifier key `%s`" % vkey in DOC)
    check("tabula-verify reads that verifier key", V.parse_vkey(vkey) == ("example.org/referee", pub))
    note = re.search(r"eight leaves above \(size 8\), exactly:\n\n```\n(.*?)```", DOC, re.S).group(1)
    body = ("example.org/referee/game/7\n8\n%s\n" % base64.b64encode(V.mth(leaves)).decode())
    made = body + "\n\u2014 example.org/referee " + \
        base64.b64encode(kid + key.sign(body.encode())).decode() + "\n"
    check("the document's checkpoint is the one cryptography signs", made == note, made)
    check("tabula-verify accepts it", V.check_note(note.encode(), "example.org/referee", pub))
    check("tabula-verify refuses it with another size",
          not V.check_note(note.replace("\n8\n", "\n9\n").encode(), "example.org/referee", pub))

    # what a player may hand it by mistake: said in words, exit 2 or 1
    verify = os.path.join(SRC, "tools", "tabula-verify")
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([sys.executable, verify, d], capture_output=True, text=True)
        check("a folder without Record lines: exit 2, said so",
              p.returncode == 2 and "no mail here carries a game's history" in p.stderr, p)
        with open(os.path.join(d, "m.eml"), "w") as f:
            f.write("From: referee@example.org\nSubject: x\n\n" + "".join(
                "Record checkpoint: %s\n" % l if l else "Record checkpoint:\n"
                for l in note.rstrip("\n").split("\n")) + "Record inclusion: 1 8 AAAA\n  BBBB\n")
        p = subprocess.run([sys.executable, verify, "--key", vkey, d], capture_output=True, text=True)
        check("a rewrapped proof line: exit 1, the mail and the line named",
              p.returncode == 1 and "cannot be read" in p.stdout and "m.eml" in p.stdout, p)
        p = subprocess.run([sys.executable, verify, "--key", "nonsense", d], capture_output=True,
                           text=True)
        check("a key that cannot be read: exit 1, what a key looks like said",
              p.returncode == 1 and "NAME+1a2b3c4d+BASE64" in p.stdout, p)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
