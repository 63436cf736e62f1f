#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# walk.py BINARY TRACE FUNC [STEPS [-v] [--layer DIR]]: the walk of the main thread from the
# first call of FUNC (until it returns, or STEPS calls): the files it
# enters, in order, and how often it comes back to one it had left.
# Prints: calls, files, re-entries (a step into a file already left
# during the walk), the same with each call or return counted once (what
# a reader follows: a loop's calls are read once, not once a turn), both
# again counting only the steps calls make (a return is the reader going
# back to the line she left), the entries of each file, and the sequence
# of files. --layer src/record/:
# the walk through that folder's files only, a call into another layer
# staying in its caller (what a reader of the recorder follows: the store's
# and util's objects are read through their headers). --getters: a getter
# (a function whose body is one return statement) is where it is used, as
# an inline function is: a reader reads a getter's name as she reads a
# field, without opening its file.
import re, struct, subprocess, sys, collections

binary, trace, func = sys.argv[1], sys.argv[2], sys.argv[3]
steps = int(sys.argv[4]) if len(sys.argv) > 4 else 0
layer = sys.argv[sys.argv.index("--layer") + 1] if "--layer" in sys.argv else None
getters_inline = "--getters" in sys.argv

# function address -> (name, file), from the symbol table and line info
syms = {}
getters = set()
load = 0
nm = subprocess.run(["nm", "-l", "--defined-only", binary], capture_output=True, text=True).stdout
for line in nm.splitlines():
    parts = line.split(None, 3)
    if len(parts) < 3 or parts[1] not in "tT":
        continue
    where = parts[3].split("\t")[-1] if len(parts) > 3 else ""
    f = where.rsplit(":", 1)[0]
    f = f[f.find("src/"):] if "src/" in f else f
    syms[int(parts[0], 16)] = (parts[2].split("\t")[0], f)
    if getters_inline and ":" in where:
        path, line = where.rsplit(":", 1)
        try:
            src = open(path).read().splitlines()[int(line) - 1:int(line) + 40]
        except (OSError, ValueError):
            src = []
        text = "\n".join(src)
        body = text[text.find("{") + 1:text.find("\n}")] if "{" in text and "\n}" in text else ""
        if re.fullmatch(r"\s*return [^;]*;\s*", body):
            getters.add(parts[2].split("\t")[0])
words = open(trace, "rb").read()
ev = struct.unpack("<%dQ" % (len(words) // 8), words[: len(words) // 8 * 8])
# a PIE binary runs at a load address: find it from FUNC's entry
target = [a for a, (n, _) in syms.items() if n == func]
if not target:
    sys.exit("walk.py: %s not in %s" % (func, binary))
target = target[0]
start = None
for i, v in enumerate(ev):
    if not v >> 63 and (v - target) % 4096 == 0:
        cand = v - target
        if all((x & ~(1 << 63)) - cand in syms for x in ev[i:i + 50]):
            load, start = cand, i
            break
if start is None:
    sys.exit("walk.py: no call of %s in the trace" % func)
stack, names, seq, calls, left = [], [], [], 0, set()
# each step into a file keyed by the call (or return) that makes it: a
# reader follows a call once, however often a loop makes it
step_keys, steps_once, back_once, seen_files = set(), 0, 0, set()
# the same, counting only the steps a call makes: a return takes the
# reader back to the line she left, which a sequencer's file is, not to
# a file she must find her way into again
call_steps = call_back = call_steps_once = call_back_once = 0
pairs = set()                   # distinct calls from one file into another
entries = collections.Counter()
call_entries = collections.Counter()  # the steps into each file a call makes
cur = None
for v in ev[start:]:
    ret = v >> 63
    name, f = syms.get((v & ~(1 << 63)) - load, ("?", "?"))
    if ret:
        key = ("ret", names[-1] if names else "?", names[-2] if len(names) > 1 else "?")
        if stack:
            stack.pop()
            names.pop()
        if not stack:
            break
    else:
        # an inline function of a header, ours or libc's, is where it is used;
        # with --layer DIR, so is a call out of DIR (another layer's object,
        # read as the contract in its header)
        if not (f.startswith("src/") and f.endswith(".c")) and stack:
            f = stack[-1]
        if layer and not f.startswith(layer) and stack:
            f = stack[-1]
        if name in getters and stack:
            f = stack[-1]
        key = ("call", names[-1] if names else "?", name)
        if stack and f != stack[-1]:
            pairs.add((names[-1], stack[-1], name, f))
        stack.append(f)
        names.append(name)
        calls += 1
        if steps and calls > steps:
            break
    top = stack[-1] if stack else None
    if top and top != cur:
        if cur:
            left.add(cur)
        entries[top] += 1
        seq.append(top)
        is_call = key[0] == "call"
        call_entries[top] += is_call
        call_steps += is_call
        call_back += is_call and top in seen_files
        if key not in step_keys:
            step_keys.add(key)
            steps_once += 1
            back_once += top in seen_files
            call_steps_once += is_call
            call_back_once += is_call and top in seen_files
        seen_files.add(top)
        cur = top
reentries = sum(1 for i, f in enumerate(seq) if f in seq[:i])
print("walk of %s: %d calls, %d files, %d steps into a file, %d of them back into one left before"
      % (func, calls, len(entries), len(seq), reentries))
# what a reader follows: each distinct call into another file once,
# however often a loop makes it
print("  each call or return followed once: %d steps into a file, %d of them back into one left before"
      % (steps_once, back_once))
print("  by a call only (a return is no step): %d steps into a file, %d of them back into one left before"
      % (call_steps, call_back))
print("  by a call only, each call followed once: %d steps into a file, %d of them back into one left before"
      % (call_steps_once, call_back_once))
into = collections.Counter(p[3] for p in pairs)
print("  distinct calls into another file: %d (a reader follows each once)" % len(pairs))
print("  steps  by-a-call  distinct-calls-in  file")
for f, c in entries.most_common():
    print("  %5d  %9d  %17d  %s" % (c, call_entries[f], into[f], f))
if "-v" in sys.argv[5:]:
    print("sequence: " + " > ".join(seq))
