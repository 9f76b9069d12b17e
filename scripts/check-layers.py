#!/usr/bin/env python3
"""check-layers.py: the files of a library call each other in one direction.

Reads the symbol tables of compiled objects (nm: what each object defines,
what it leaves undefined) and draws an edge A -> B when A uses a symbol B
defines. Fails, printing what it found, when

  * the files of a group form a cycle (A -> ... -> A): printed as the cycle
    and every edge inside it, with the symbols that make each edge;
  * a group has layers (--layers DOC) and an edge goes upward: from a
    file of a lower layer to a file of a higher one;
  * an object of such a group does not sit in a layer's folder;
  * with --sources DIR and layers, a file lies in DIR itself rather than
    in a layer's folder, or includes a header of a higher layer than its
    own; or a file of a layer's folder has no row in the table of files,
    or a row names a file that is not there (the description stays true
    to the tree);
  * with --sources DIR and a layer table, a call goes upward through a
    function pointer: a file hands the address of a function F of a higher
    layer to a function G of a lower one (G(..., F, ...), or G(..., T, ...)
    where the initializer of T names F), so G's file may call F's file.
    The symbol tables cannot see this (the lower file never names F); the
    sources can. A known one is let through with --allow-callback FILE:F,
    printed every run so it is not forgotten.

Calls through a pointer are drawn as edges of their own: they count
against the layer table (who may call whom at run time) but not for
cycles, which are about names: a lower file that calls back through a
hook it was handed (SQLite's sqlite3_commit_hook; store.c's store_tx_hook)
does not name the file above it, and that is the point of the hook.

A file's layer is its folder. The layers are the table in
docs/architecture.md ("The service") whose header row is
`| layer | folder | what |`: one row a folder, the first column its
number counted from the bottom, the second the folder in backquotes
(`top/`). An object's folder is the one it was compiled in: CMake keeps
the source's folder under the target's object folder
(BUILD/referee/CMakeFiles/tabula_top.dir/top/admin.c.o), and the
generated templates_embedded.c is written into BUILD/referee/kit/. The
next table of the document, `| file | what |`, describes every file
(`top/admin.c`); with --sources it is checked against the tree. Calls
inside a layer are allowed as long as they make no cycle.

Usage (tests/CMakeLists.txt runs it on the build tree's objects):
  check-layers.py [--nm NM] [--graph] --group NAME [--layers DOC] [--sources DIR]
                  [--allow-callback FILE:FUNC ...] OBJ|DIR ... [--group NAME ...]
A DIR argument stands for every *.o under it (handy by hand: CMake keeps a
target's objects in BUILD/<folder>/CMakeFiles/<target>.dir; a file deleted
from the sources may leave a stale object there). --graph also prints, for
every file, the files it uses and the files that use it: what else may move
when it changes.
"""
import collections
import os
import re
import subprocess
import sys

TABLE_HEADER = re.compile(r"^\|\s*layer\s*\|\s*folder\s*\|\s*what\s*\|\s*$")
TABLE_ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*`([^`/]+)/?`\s*\|")
FILES_HEADER = re.compile(r"^\|\s*file\s*\|\s*what\s*\|\s*$")
FILES_ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def fail_usage(msg):
    sys.stderr.write("check-layers: %s\n" % msg)
    sys.exit(2)


def parse_args(argv):
    nm = os.environ.get("NM", "nm")
    groups = []
    show = False
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--graph":
            show = True
            i += 1
            continue
        if a == "--nm":
            nm = argv[i + 1]
            i += 2
            continue
        if a == "--group":
            groups.append({"name": argv[i + 1], "objects": [], "layers": None, "sources": None,
                           "allow": []})
            i += 2
            continue
        if a in ("--layers", "--sources"):
            if not groups:
                fail_usage("%s before any --group" % a)
            groups[-1][a[2:]] = argv[i + 1]
            i += 2
            continue
        if a == "--allow-callback":
            if not groups:
                fail_usage("%s before any --group" % a)
            if ":" not in argv[i + 1]:
                fail_usage("--allow-callback wants FILE:FUNC, not %s" % argv[i + 1])
            groups[-1]["allow"].append(tuple(argv[i + 1].split(":", 1)))
            i += 2
            continue
        if a.startswith("-"):
            fail_usage("unknown option %s" % a)
        if not groups:
            fail_usage("objects before any --group")
        # CMake's $<TARGET_OBJECTS:...> may arrive as one ;-joined word
        for part in a.split(";"):
            if not part:
                continue
            if os.path.isdir(part):
                groups[-1]["objects"] += sorted(
                    os.path.join(d, f) for d, _, fs in os.walk(part) for f in fs
                    if f.endswith(".o"))
            else:
                groups[-1]["objects"].append(part)
        i += 1
    if not groups:
        fail_usage("nothing to check: give --group NAME OBJECTS...")
    return nm, groups, show


def source_name(obj):
    """admin.c.o -> admin.c (CMake's object names keep the source's)."""
    base = os.path.basename(obj)
    return base[:-2] if base.endswith(".o") else base


def symbols(nm, obj, functions=None):
    """What obj defines and leaves undefined; with `functions` (a dict),
    also its functions, static ones included: {name: "T" or "t"}."""
    out = subprocess.run([nm, "-P", obj], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        name, kind = f[0], f[1]
        if kind in ("U", "w", "v"):
            undefined.add(name)
        elif kind.isupper():
            defined.add(name)
        if functions is not None and kind in ("T", "t"):
            functions[name] = kind
    return defined, undefined


def graph(nm, objects):
    """{file: {file it uses: [symbols]}} over one group's objects."""
    owner, needs = {}, {}
    for obj in objects:
        name = source_name(obj)
        if name in needs:
            fail_usage("two objects named %s in one group" % name)
        defined, undefined = symbols(nm, obj)
        needs[name] = undefined
        for s in defined:
            owner.setdefault(s, name)
    edges = {name: collections.defaultdict(list) for name in needs}
    for name, undefined in needs.items():
        for s in sorted(undefined):
            o = owner.get(s)
            if o and o != name:
                edges[name][o].append(s)
    return edges


def strongly_connected(edges):
    """Tarjan's algorithm, iterative; components of more than one file."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def shortest_cycle(edges, comp):
    """One shortest cycle inside a component, as a list of files."""
    members = set(comp)
    best = None
    for start in comp:
        prev = {start: None}
        queue = collections.deque([start])
        found = None
        while queue and not found:
            v = queue.popleft()
            for w in sorted(edges[v]):
                if w not in members:
                    continue
                if w == start:
                    found = v
                    break
                if w not in prev:
                    prev[w] = v
                    queue.append(w)
        if found is None:
            continue
        path = [found]
        while prev[path[-1]] is not None:
            path.append(prev[path[-1]])
        path.reverse()
        if best is None or len(path) < len(best):
            best = path
    return best


# ---- calls through a function pointer, from the sources ----

IDENT = re.compile(r"[A-Za-z_]\w*")
NOT_CALLS = {"if", "while", "for", "switch", "return", "sizeof", "_Alignof", "alignof",
             "defined", "__attribute__", "typeof", "__typeof__"}
STRIP = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def strip_c(text):
    """The C text without comments and string or character literals (each
    kept as a blank of the same length, so positions stay)."""
    return STRIP.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def enclosing(text, pos, opener, closer):
    """Where the innermost `opener` around pos opens (-1 if a statement or
    block boundary comes first)."""
    depth = 0
    i = pos - 1
    while i >= 0:
        c = text[i]
        if c == closer:
            depth += 1
        elif c == opener:
            if depth == 0:
                return i
            depth -= 1
        elif depth == 0 and c in ";" and opener == "(":
            return -1
        elif depth == 0 and c in "{}" and opener == "(":
            return -1
        i -= 1
    return -1


def word_before(text, i):
    j = i - 1
    while j >= 0 and text[j].isspace():
        j -= 1
    end = j + 1
    while j >= 0 and (text[j].isalnum() or text[j] == "_"):
        j -= 1
    return text[j + 1:end], j


def callee_of(text, pos):
    """The function whose call's arguments hold position pos, or None."""
    i = enclosing(text, pos, "(", ")")
    while i >= 0:
        name, _ = word_before(text, i)
        if name and name not in NOT_CALLS and not name[0].isdigit():
            return name
        if name in NOT_CALLS or not name:
            # a condition's or a cast's parentheses: look further out
            i = enclosing(text, i, "(", ")")
            continue
        return None
    return None


def initializer_of(text, pos):
    """The variable whose brace initializer holds position pos, or None."""
    i = enclosing(text, pos, "{", "}")
    while i >= 0:
        j = i - 1
        while j >= 0 and text[j].isspace():
            j -= 1
        if j >= 0 and text[j] == "=":
            k = j - 1
            while k >= 0 and text[k].isspace():
                k -= 1
            while k >= 0 and text[k] == "]":  # name[] = { ... }
                k = text.rfind("[", 0, k) - 1
                while k >= 0 and text[k].isspace():
                    k -= 1
            name, _ = word_before(text, k + 1)
            return name or None
        if j >= 0 and text[j] in "{,":  # a nested brace: go out
            i = enclosing(text, i, "{", "}")
            continue
        return None
    return None


def callbacks(nm, objects, paths):
    """[(caller file, callee file, function F, given to G, in file X)]: G of
    the caller file is handed F's address in file X, so G's file may call
    F's file through it."""
    funcs = {}     # file -> {name: kind}
    globals_ = {}  # name -> file, for T symbols
    for obj in objects:
        name = source_name(obj)
        funcs[name] = {}
        symbols(nm, obj, funcs[name])
        for f, kind in funcs[name].items():
            if kind == "T":
                globals_.setdefault(f, name)

    def owner(x, f):
        if funcs.get(x, {}).get(f) == "t":
            return x
        return globals_.get(f)

    found = []
    for x in sorted(funcs):
        path = paths.get(x)
        if not path:
            continue
        with open(path, encoding="utf-8") as fh:
            text = strip_c(fh.read())
        tables = collections.defaultdict(set)  # variable -> functions its initializer names
        given = []  # (F or table, position)
        for m in IDENT.finditer(text):
            f = m.group(0)
            a = owner(x, f)
            if not a:
                continue
            rest = text[m.end():].lstrip()
            if rest.startswith("("):
                continue  # a call or the definition
            before = text[:m.start()].rstrip()
            if before.endswith((".", "->")):
                continue  # a member of the same name
            table = initializer_of(text, m.start())
            if table and table != f:
                tables[table].add(f)
            given.append((f, m.start()))
        for t in tables:
            for m in re.finditer(r"\b%s\b" % re.escape(t), text):
                # the table itself, not its definition or one of its members
                if not text[m.end():].lstrip().startswith(("[", "=", ".", "->")):
                    for f in tables[t]:
                        given.append((f, m.start()))
        seen = set()
        for f, pos in given:
            g = callee_of(text, pos)
            if not g:
                continue
            b = owner(x, g)
            a = owner(x, f)
            if b and a and b != a and (b, a, f, g, x) not in seen:
                seen.add((b, a, f, g, x))
                found.append((b, a, f, g, x))
    return found


def short(syms, n=4):
    return ", ".join(syms[:n]) + (", ..." if len(syms) > n else "")


def read_layers(doc):
    """({folder: number} from the `| layer | folder | what |` table,
    [file paths] from the `| file | what |` table after it)."""
    folders, files, state = {}, [], "before"
    with open(doc, encoding="utf-8") as f:
        for line in f:
            if state in ("before", "between"):
                if state == "before" and TABLE_HEADER.match(line):
                    state = "layers"
                elif state == "between" and FILES_HEADER.match(line):
                    state = "files"
                continue
            if not line.startswith("|"):
                if state == "layers":
                    state = "between"
                    continue
                break
            if state == "layers":
                m = TABLE_ROW.match(line)
                if m:
                    folders[m.group(2)] = int(m.group(1))
            else:
                m = FILES_ROW.match(line)
                if m:
                    files.append(m.group(1))
    if not folders:
        fail_usage("%s has no `| layer | folder | what |` table" % doc)
    return folders, files


def source_files(g, folders):
    """{file: its path relative to --sources} of a group's sources: with
    layers the .c and .h of the layers' folders, and (as folder ".") those
    lying in --sources itself; without, the files of --sources."""
    srcdir, out = g["sources"], {}
    if not srcdir:
        return out
    for d in ["."] + sorted(folders or {}):
        path = os.path.join(srcdir, d)
        if not os.path.isdir(path):
            continue
        for f in sorted(os.listdir(path)):
            if f.endswith((".c", ".h")):
                if f in out:
                    fail_usage("two files named %s under %s" % (f, srcdir))
                out[f] = os.path.normpath(os.path.join(d, f))
    return out


def layer_of_objects(name, objects, folders):
    """{file: (number, folder)} from the folder each object was compiled in,
    and the number of objects that sit in no layer's folder."""
    layers, problems = {}, 0
    for obj in objects:
        folder = os.path.basename(os.path.dirname(os.path.abspath(obj)))
        if folder not in folders:
            problems += 1
            print("%s: %s was compiled in %s/, which is no layer's folder" %
                  (name, source_name(obj), folder))
            continue
        layers[source_name(obj)] = (folders[folder], folder)
    return layers, problems


def print_graph(name, edges, layers):
    users = collections.defaultdict(list)
    for a in edges:
        for b in edges[a]:
            users[b].append(a)
    for f in sorted(edges, key=lambda f: (-layers.get(f, (0, ""))[0], f)):
        where = " (%d %s)" % layers[f] if f in layers else ""
        print("%s: %s%s" % (name, f, where))
        print("    uses:    %s" % (" ".join(sorted(edges[f])) or "-"))
        print("    used by: %s" % (" ".join(sorted(users[f])) or "-"))


def check_group(nm, g, show):
    problems = 0
    edges = graph(nm, g["objects"])
    name = g["name"]
    folders, rows = read_layers(g["layers"]) if g["layers"] else (None, [])
    sources = source_files(g, folders)
    layers = {}
    if folders:
        layers, problems = layer_of_objects(name, g["objects"], folders)
        for f, path in sources.items():
            if os.path.dirname(path) in folders:
                layers.setdefault(f, (folders[os.path.dirname(path)], os.path.dirname(path)))
    if show:
        print_graph(name, edges, layers)
    nedges = sum(len(v) for v in edges.values())
    comps = strongly_connected(edges)
    for comp in comps:
        problems += 1
        cyc = shortest_cycle(edges, comp)
        print("%s: CYCLE of %d files: %s" % (name, len(comp), " ".join(comp)))
        print("  for example: %s" % " -> ".join(cyc + [cyc[0]]))
        for i, a in enumerate(cyc):
            b = cyc[(i + 1) % len(cyc)]
            print("    %s -> %s: %s" % (a, b, short(edges[a][b])))
        print("  every edge inside it:")
        for a in comp:
            for b in sorted(edges[a]):
                if b in comp:
                    print("    %s -> %s: %s" % (a, b, short(edges[a][b])))
    if folders:
        for a in sorted(edges):
            for b in sorted(edges[a]):
                if a in layers and b in layers and layers[b][0] > layers[a][0]:
                    problems += 1
                    print("%s: UPWARD %s (%d %s) -> %s (%d %s): %s" %
                          (name, a, layers[a][0], layers[a][1], b, layers[b][0], layers[b][1],
                           short(edges[a][b])))
        if g["sources"]:
            problems += check_tree(name, g, sources, rows, edges, layers)
            problems += check_includes(name, g["sources"], sources, layers)
    if g["sources"]:
        problems += check_callbacks(nm, g, show, layers, sources)
    verdict = "FAILED" if problems else "ok"
    print("%s: %d files, %d edges, %d cycle(s)%s: %s" %
          (name, len(edges), nedges, len(comps),
           ", layers from the folders%s" % (" of %s" % g["sources"] if g["sources"] else "")
           if folders else "", verdict))
    return problems


def check_tree(name, g, sources, rows, edges, layers):
    """Every file lies in a layer's folder, every .c there was compiled,
    and the table of files names exactly the files of the folders."""
    problems = 0
    listed = set(rows)
    for f, path in sorted(sources.items()):
        if os.path.dirname(path) == "":
            problems += 1
            print("%s: %s lies in %s itself, not in a layer's folder" % (name, f, g["sources"]))
            continue
        if f.endswith(".c") and f not in edges:
            problems += 1
            print("%s: %s was not compiled" % (name, path))
        if path not in listed:
            problems += 1
            print("%s: %s has no row in the table of files of %s" % (name, path, g["layers"]))
    there = set(sources.values())
    for path in rows:
        f, folder = os.path.basename(path), os.path.dirname(path)
        # a generated file (templates_embedded.c) is there as an object
        if path not in there and layers.get(f, (0, None))[1] != folder:
            problems += 1
            print("%s: the table of files names %s, which is not there" % (name, path))
    return problems


def check_callbacks(nm, g, show, layers, sources):
    """Calls through a function pointer: listed with --graph; upward ones
    against the layers fail unless --allow-callback names them."""
    name, problems = g["name"], 0
    allowed, used = set(g["allow"]), set()
    found = callbacks(nm, g["objects"],
                      {f: os.path.join(g["sources"], p) for f, p in sources.items()})
    for b, a, f, callee, x in found:
        up = a in layers and b in layers and layers[a][0] > layers[b][0]
        if show or up:
            what = "%s -> %s through a pointer: %s() is handed %s (in %s)" % (b, a, callee, f, x)
            if up:
                what = "UPWARD %s (%d %s) -> %s (%d %s) through a pointer: %s() is handed %s" \
                       " (in %s)" % (b, layers[b][0], layers[b][1], a, layers[a][0], layers[a][1],
                                     callee, f, x)
                if (a, f) in allowed:
                    used.add((a, f))
                    what += ": allowed (--allow-callback %s:%s)" % (a, f)
                else:
                    problems += 1
            print("%s: %s" % (name, what))
    for a, f in sorted(allowed - used):
        print("%s: note: --allow-callback %s:%s: no such upward call any more" % (name, a, f))
    print("%s: %d call(s) through a function pointer between files%s" %
          (name, len(found), ", %d upward" % problems if problems else ""))
    return problems


def check_includes(name, srcdir, sources, layers):
    """A file may include the headers of its own layer and those below."""
    problems = 0
    for f, path in sorted(sources.items()):
        if f not in layers:
            continue
        with open(os.path.join(srcdir, path), encoding="utf-8") as fh:
            for h in INCLUDE.findall(fh.read()):
                h = os.path.basename(h)
                if h in layers and layers[h][0] > layers[f][0]:
                    problems += 1
                    print("%s: UPWARD include in %s (%d %s): %s (%d %s)" %
                          (name, path, layers[f][0], layers[f][1], h, layers[h][0],
                           layers[h][1]))
    return problems


def main():
    nm, groups, show = parse_args(sys.argv[1:])
    problems = 0
    for g in groups:
        if not g["objects"]:
            fail_usage("group %s has no objects" % g["name"])
        problems += check_group(nm, g, show)
    if problems:
        print("check-layers: %d problem(s); see docs/architecture.md, \"The service\"" % problems)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
