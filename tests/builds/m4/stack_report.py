#!/usr/bin/env python3
"""Code size and worst stack use of the Cortex-M4F build, as a Markdown table.

    stack_report.py ELF OBJ.o... [--measured BYTES]

Sizes come from arm-none-eabi-size (the whole program) and arm-none-eabi-nm
(the functions and data whose source is linattn.h). The stack estimate comes
from gcc's -fcallgraph-info=su files (OBJ.ci beside each OBJ.o): the worst
call chain is the largest sum of frames along any path from Reset_Handler,
an indirect call counting as the worst chain of any function stored in a
constant table (the kernel table, the optimizers: relocations from data
sections of the object files; the vector table excluded). Callbacks passed
as arguments (la_hvp_matvec, a trainer objective) are not stored there and
this program reaches none, except L-BFGS's closure (CLOSURE_CALLERS below)
and the optimizers' walk over theta's pieces (WALK_CALLERS).
Library code without stack information (libgcc,
newlib) is counted as 0 bytes. With --measured, the script fails unless the estimate
bounds the stack actually used (painted stack, measured under qemu)."""
import re
import subprocess
import sys

NODE = re.compile(r'node: \{ title: "([^"]+)" label: "([^"]*)"')
EDGE = re.compile(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def short(title):
    return title.rsplit(":", 1)[-1]  # static functions carry their file


def read_graph(objs):
    frame, calls, where = {}, {}, {}
    for obj in objs:
        with open(obj[:-2] + ".ci") as f:
            for line in f:
                m = NODE.match(line)
                if m:
                    name, label = short(m.group(1)), m.group(2).split("\\n")
                    size = re.match(r"(\d+) bytes", label[-1]) if len(label) > 2 else None
                    if size:
                        frame[name] = int(size.group(1))
                        where[name] = label[1]
                    continue
                m = EDGE.match(line)
                if m:
                    calls.setdefault(short(m.group(1)), set()).add(short(m.group(2)))
    return frame, calls, where


def stored_in_tables(objs):
    funcs, taken = set(), set()
    for obj in objs:
        for line in run("arm-none-eabi-readelf", "-sW", obj).splitlines():
            f = line.split()
            if len(f) >= 8 and f[3] == "FUNC":
                funcs.add(f[7])
        section = ""
        for line in run("arm-none-eabi-readelf", "-rW", obj).splitlines():
            f = line.split()
            if line.startswith("Relocation section"):
                section = f[2].strip("'")
            elif (section.startswith((".rel.rodata", ".rel.data")) and
                  len(f) >= 5 and f[2] == "R_ARM_ABS32"):
                taken.add(f[4])
    return funcs & taken


# L-BFGS's indirect calls are its closure's evaluations, which the trainer
# builds on its stack (la__tr_closure_eval), never a table's functions; and
# a closure optimizer's step is called only where the trainer takes a step
# (la_optim_step_closure for a caller's closure). Without these two rules
# the table's rule would have L-BFGS call itself.
CLOSURE_CALLERS = ("la__lbfgs_step", "la__lb_")
CLOSURE_EVALS = ["la__tr_closure_eval"]
CLOSURE_STEPS = {"la__lbfgs_step"}
CLOSURE_STEP_CALLERS = ("la__tr_clip_and_update", "la_trainer_step",
                        "la_optim_step_closure")


# la__op_walk's indirect call is its per-piece callback, which the matrix
# optimizers' length and init functions pass as an argument: a la__*_piece
# function, never a table's (the table's rule would have each optimizer's
# length function call itself through the walk).
WALK_CALLERS = ("la__op_walk",)
PIECE = re.compile(r"la__\w+_piece(\.\w+)*$")


def indirect_targets(f, targets, funcs=()):
    if f.startswith(WALK_CALLERS):
        return sorted(g for g in funcs if PIECE.match(g))
    if f.startswith(CLOSURE_CALLERS):
        return CLOSURE_EVALS
    t = sorted(targets - CLOSURE_STEPS)
    if f.startswith(CLOSURE_STEP_CALLERS):
        t += sorted(targets & CLOSURE_STEPS)
    return t


def worst_chains(frame, calls, targets):
    best, cycles = {}, []

    def chain(f, path):
        if f in best:
            return best[f]
        if f in path:
            cycles.append(" -> ".join(path[path.index(f):] + [f]))
            return (0, [])
        path.append(f)
        top = (0, [])
        for g in sorted(calls.get(f, ())):
            for h in (indirect_targets(f, targets, frame) if g == "__indirect_call" else [g]):
                c = chain(h, path)
                if c[0] > top[0]:
                    top = c
        path.pop()
        best[f] = (frame.get(f, 0) + top[0], [f] + top[1])
        return best[f]

    return chain("Reset_Handler", []), cycles


def lib_size(elf, where):
    """Bytes of the linked functions whose source is linattn.h."""
    text = 0
    for line in run("arm-none-eabi-nm", "-S", elf).splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tT" and "linattn.h" in where.get(f[3], ""):
            text += int(f[1], 16)
    return text


def main(argv):
    measured = None
    if "--measured" in argv:
        i = argv.index("--measured")
        measured = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    elf, objs = argv[0], argv[1:]
    text, data, bss = (int(x) for x in run("arm-none-eabi-size", elf).splitlines()[1].split()[:3])
    frame, calls, where = read_graph(objs)
    ltext = lib_size(elf, where)
    (total, path), cycles = worst_chains(frame, calls, stored_in_tables(objs))
    deep = max(frame, key=frame.get)
    print("| Cortex-M4F, arm-none-eabi-gcc -Os | bytes |")
    print("|---|---|")
    print(f"| text (code and constants), whole program | {text} |")
    print(f"| of which functions of linattn.h | {ltext} |")
    print(f"| data | {data} |")
    print(f"| bss (the trainer's static block, data generator) | {bss} |")
    print(f"| deepest frame: `{deep}` | {frame[deep]} |")
    print(f"| worst call chain, static estimate | {total} |")
    if measured is not None:
        print(f"| stack used, measured under qemu-system-arm | {measured} |")
    print()
    print("Worst chain: " + " > ".join(f"{f} ({frame.get(f, 0)})" for f in path))
    if cycles:
        print("Recursion (not bounded by the estimate): " + "; ".join(sorted(set(cycles))))
        return 1
    if measured is not None and measured > total:
        print(f"FAIL: measured {measured} bytes exceed the estimate of {total}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
