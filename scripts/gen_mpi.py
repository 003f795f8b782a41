#!/usr/bin/env python3
"""Generate smartmap's MPI 5.0 standard-ABI bindings from the MPI Forum's data.

Inputs (DESIGN.md D1): std/mpi-standard-5.0-abi.json and
std/mpi-standard-5.0-apis.json (the Forum's pympistandard extraction of MPI 5.0,
carried in the repository: std/README.md).

Outputs (all checked in; `make regen` rewrites them, the test
abi_generated_current runs `--check`):

  include/mpi.h                  every constant, type, callback typedef and C
                                 function (MPI_ and PMPI_) of MPI 5.0
  src/binding/gen_pmpi_aliases.c MPI_Foo -> PMPI_Foo for every function
  src/binding/gen_unsupported.c  PMPI_Foo stubs for the functions that no
                                 hand-written src/binding/*.c defines
  src/binding/gen/<family>.c     the thin entry points: argument checks from
                                 the parameters' kinds, one call below
                                 (scripts/gen_binding.py)
  docs/STATUS.md                 what is implemented

Usage: python3 scripts/gen_mpi.py [--std DIR] [--root DIR] [--check]

Python 3 standard library only. The output is deterministic: functions are
sorted by name, constants follow the JSON's category order.
"""

import argparse
import difflib
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_binding  # noqa: E402  (the generated thin binding, src/binding/gen/)

# ---------------------------------------------------------------------------
# Parameter "kind" -> C type.
#
# Source: the MPI Forum's pympistandard library, src/pympistandard/_kinds.py
# (each Kind's `_iso_c_small`, and `_iso_c_large` for the POLY* kinds that
# change type in the large-count "_c" binding), together with isoc.py for how
# a parameter is rendered (pointer level, const, array brackets). Kinds added
# for MPI 5.0 after that file (LOGICAL_VOID, KEY_INDEX as the handle<->int
# serialisation type) follow the MPI 5.0 ABI chapter's C prototypes.
# A kind missing from this table is a hard error: extend the table, citing
# the standard.
# ---------------------------------------------------------------------------

SMALL = "small"   # the normal binding
LARGE = "large"   # the MPI-4 large-count binding (name suffix "_c")

# kind -> C base type (identical in both bindings)
C_KIND = {
    # choice buffers and other untyped memory
    "BUFFER": "void", "C_BUFFER": "void", "C_BUFFER2": "void",
    "C_BUFFER3": "void", "C_BUFFER4": "void",
    "EXTRA_STATE": "void", "EXTRA_STATE2": "void",
    "ATTRIBUTE_VAL": "void", "ATTRIBUTE_VAL_10": "void",
    "TOOL_MPI_OBJ": "void", "LOGICAL_VOID": "void",
    # strings
    "STRING": "char", "STRING_ARRAY": "char", "STRING_2DARRAY": "char",
    "ARGUMENT_LIST": "char",
    # plain int kinds
    "ACCESS_MODE": "int", "ARGUMENT_COUNT": "int", "ARRAY_LENGTH": "int",
    "ARRAY_LENGTH_NNI": "int", "ARRAY_LENGTH_PI": "int", "ASSERT": "int",
    "BIND_TYPE": "int", "CAT_INDEX": "int", "COLOR": "int", "COMBINER": "int",
    "COMM_COMPARISON": "int", "COMM_SIZE": "int", "COMM_SIZE_PI": "int",
    "COORDINATE": "int", "CVAR_INDEX": "int", "CVAR_INDEX_SPECIAL": "int",
    "DEGREE": "int", "DIMENSION": "int", "DISTRIB_ENUM": "int",
    "DTYPE_DISTRIBUTION": "int", "ERROR_CLASS": "int", "ERROR_CODE": "int",
    "ERROR_CODE_SHOW_INTENT": "int", "EVENT_INDEX": "int",
    "FILE_DESCRIPTOR": "int", "GENERIC_DTYPE_INT": "int",
    "GROUP_COMPARISON": "int", "INDEX": "int", "INFO_VALUE_LENGTH": "int",
    "KEY": "int", "KEYVAL": "int", "KEY_INDEX": "int", "LOCK_TYPE": "int",
    "LOGICAL": "int", "LOGICAL_OPTIONAL": "int", "MATH": "int",
    "NUM_BYTES_SMALL": "int", "NUM_DIMS": "int", "ORDER": "int",
    "PARTITION": "int", "PROCESS_GRID_SIZE": "int", "PROFILE_LEVEL": "int",
    "PVAR_CLASS": "int", "PVAR_INDEX": "int", "RANK": "int", "RANK_NNI": "int",
    "SOURCE_INDEX": "int", "SPLIT_TYPE": "int", "STRING_LENGTH": "int",
    "TAG": "int", "THREAD_LEVEL": "int", "TOOLENUM_INDEX": "int",
    "TOOLENUM_SIZE": "int", "TOOLS_NUM_ELEM_SMALL": "int",
    "TOOL_VAR_VALUE": "int", "TOOL_VAR_VERBOSITY": "int",
    "TOPOLOGY_TYPE": "int", "TYPECLASS": "int", "TYPECLASS_SIZE": "int",
    "UPDATE_MODE": "int", "UPDATE_NUMBER": "int", "VARIABLE_SCOPE": "int",
    "VERSION": "int", "WEIGHT": "int",
    # address-sized
    "ALLOC_MEM_NUM_BYTES": "MPI_Aint", "DISPLACEMENT": "MPI_Aint",
    "DISPLACEMENT_NNI": "MPI_Aint", "DISPOFFSET_SMALL": "MPI_Aint",
    "LOCATION_SMALL": "MPI_Aint", "RMA_DISPLACEMENT_NNI": "MPI_Aint",
    "WINDOW_SIZE": "MPI_Aint", "WIN_ATTACH_SIZE": "MPI_Aint",
    # count / offset
    "DROPPED_COUNT": "MPI_Count", "GENERIC_DTYPE_COUNT": "MPI_Count",
    "NUM_BYTES": "MPI_Count", "TOOLS_TICK_COUNT": "MPI_Count",
    "XFER_NUM_ELEM": "MPI_Count", "XFER_NUM_ELEM_NNI": "MPI_Count",
    "OFFSET": "MPI_Offset",
    # handles
    "COMMUNICATOR": "MPI_Comm", "DATATYPE": "MPI_Datatype",
    "ERRHANDLER": "MPI_Errhandler", "FILE": "MPI_File", "GROUP": "MPI_Group",
    "INFO": "MPI_Info", "MESSAGE": "MPI_Message", "OPERATION": "MPI_Op",
    "REQUEST": "MPI_Request", "SESSION": "MPI_Session", "WINDOW": "MPI_Win",
    "STATUS": "MPI_Status",
    # tool interface
    "CVAR": "MPI_T_cvar_handle", "PVAR": "MPI_T_pvar_handle",
    "PVAR_SESSION": "MPI_T_pvar_session", "TOOLS_ENUM": "MPI_T_enum",
    "EVENT_REGISTRATION": "MPI_T_event_registration",
    "EVENT_INSTANCE": "MPI_T_event_instance",
    "SOURCE_ORDERING": "MPI_T_source_order",
    "CALLBACK_SAFETY": "MPI_T_cb_safety",
    "EVENT_CB_FUNCTION": "MPI_T_event_cb_function",
    "EVENT_FREE_CB_FUNCTION": "MPI_T_event_free_cb_function",
    "EVENT_DROP_CB_FUNCTION": "MPI_T_event_dropped_cb_function",
    # Fortran interoperability
    "F90_STATUS": "MPI_Fint", "F08_STATUS": "MPI_F08_status",
    "F90_COMM": "MPI_Fint", "F90_DATATYPE": "MPI_Fint",
    "F90_ERRHANDLER": "MPI_Fint", "F90_FILE": "MPI_Fint",
    "F90_GROUP": "MPI_Fint", "F90_INFO": "MPI_Fint", "F90_MESSAGE": "MPI_Fint",
    "F90_OP": "MPI_Fint", "F90_REQUEST": "MPI_Fint", "F90_SESSION": "MPI_Fint",
    "F90_WIN": "MPI_Fint",
    # return-only kinds
    "WALL_TIME": "double", "TICK_RESOLUTION": "double", "NOTHING": "void",
}

# POLY kinds: (type in the normal binding, type in the "_c" binding)
C_POLY_KIND = {
    "POLYDISPLACEMENT": ("int", "MPI_Aint"),
    "POLYRMA_DISPLACEMENT": ("int", "MPI_Aint"),
    "POLYRMA_DISPLACEMENT_NNI": ("int", "MPI_Aint"),
    "POLYDISPOFFSET": ("MPI_Aint", "MPI_Count"),
    "POLYDTYPE_NUM_ELEM_NNI": ("int", "MPI_Count"),
    "POLYDTYPE_NUM_ELEM": ("int", "MPI_Count"),
    "POLYDTYPE_NUM_ELEM_PI": ("int", "MPI_Count"),
    "POLYDTYPE_STRIDE_BYTES": ("MPI_Aint", "MPI_Count"),
    "POLYDISPLACEMENT_COUNT": ("int", "MPI_Count"),
    "POLYDISPLACEMENT_AINT_COUNT": ("MPI_Aint", "MPI_Count"),
    "POLYDTYPE_PACK_SIZE": ("MPI_Aint", "MPI_Count"),
    "POLYLOCATION": ("MPI_Aint", "MPI_Count"),
    "POLYTOOLS_NUM_ELEM": ("int", "MPI_Count"),
    "POLYNUM_BYTES": ("int", "MPI_Count"),
    "POLYNUM_BYTES_NNI": ("int", "MPI_Count"),
    "POLYXFER_NUM_ELEM": ("int", "MPI_Count"),
    "POLYXFER_NUM_ELEM_NNI": ("int", "MPI_Count"),
    "POLYNUM_PARAM_VALUES": ("int", "MPI_Count"),
}

# Kinds whose C type comes from the parameter's func_type (a callback
# typedef); POLYFUNCTION takes the "_c" callback in the large binding.
FUNCTION_KINDS = ("FUNCTION", "FUNCTION_SMALL", "POLYFUNCTION")

# Kinds always passed through one pointer (isoc.py, pointer_level()).
POINTER_KINDS = {
    "BUFFER", "C_BUFFER", "C_BUFFER2", "C_BUFFER3", "C_BUFFER4", "STRING",
    "EXTRA_STATE", "EXTRA_STATE2", "ATTRIBUTE_VAL", "STATUS",
    "ATTRIBUTE_VAL_10", "STRING_ARRAY", "FUNCTION", "FUNCTION_SMALL",
    "POLYFUNCTION", "TOOL_MPI_OBJ", "F08_STATUS", "F90_STATUS",
    "LOGICAL_VOID",
}

# The opaque handle types of the standard ABI (MPI 5.0, chapter 20.3.2
# "Opaque Handles" and the MPI_T handles): pointers to incomplete structs.
ABI_HANDLE_TYPES = [
    ("MPI_Comm", "MPI_ABI_Comm"), ("MPI_Datatype", "MPI_ABI_Datatype"),
    ("MPI_Errhandler", "MPI_ABI_Errhandler"), ("MPI_File", "MPI_ABI_File"),
    ("MPI_Group", "MPI_ABI_Group"), ("MPI_Info", "MPI_ABI_Info"),
    ("MPI_Message", "MPI_ABI_Message"), ("MPI_Op", "MPI_ABI_Op"),
    ("MPI_Request", "MPI_ABI_Request"), ("MPI_Session", "MPI_ABI_Session"),
    ("MPI_Win", "MPI_ABI_Win"),
]
ABI_TOOL_HANDLE_TYPES = [
    ("MPI_T_enum", "MPI_ABI_T_enum"),
    ("MPI_T_cvar_handle", "MPI_ABI_T_cvar_handle"),
    ("MPI_T_pvar_handle", "MPI_ABI_T_pvar_handle"),
    ("MPI_T_pvar_session", "MPI_ABI_T_pvar_session"),
    ("MPI_T_event_instance", "MPI_ABI_T_event_instance"),
    ("MPI_T_event_registration", "MPI_ABI_T_event_registration"),
]
# MPI_T enumerations: int-sized in the ABI.
ABI_TOOL_INT_TYPES = ["MPI_T_cb_safety", "MPI_T_source_order"]

OUT_HEADER = "include/mpi.h"
OUT_ALIASES = "src/binding/gen_pmpi_aliases.c"
OUT_STUBS = "src/binding/gen_unsupported.c"
OUT_STATUS = "docs/STATUS.md"

GENERATED_NOTE = ("Generated by scripts/gen_mpi.py from std/ (the MPI Forum's JSON) "
                  "(`make regen`). Do not edit: a test (abi_generated_current) "
                  "fails when this file differs from what the script writes.")


class GenError(Exception):
    """Input the generator does not know how to render."""


# ---------------------------------------------------------------------------
# Model
# ---------------------------------------------------------------------------

class Param:
    """One C parameter of one binding (normal or large-count)."""

    def __init__(self, raw, binding):
        self.raw = raw
        self.binding = binding
        self.name = raw["name"]
        self.kind = raw["kind"]

    @property
    def is_varargs(self):
        return self.kind == "VARARGS"

    def base_type(self):
        kind = self.kind
        if kind in FUNCTION_KINDS:
            ftype = self.raw["func_type"]
            if not ftype:
                raise GenError("function parameter without func_type: %s" % self.name)
            if kind == "POLYFUNCTION" and self.binding == LARGE:
                ftype += "_c"
            return ftype
        if kind in C_POLY_KIND:
            small, large = C_POLY_KIND[kind]
            return large if self.binding == LARGE else small
        if kind in C_KIND:
            return C_KIND[kind]
        raise GenError("unknown parameter kind %s (parameter %s)" % (kind, self.name))

    def pointer_level(self):
        raw = self.raw
        kind = self.kind
        if kind == "ARGUMENT_LIST":
            # main()'s argv: `char *argv[]` where the JSON says pointer=False
            # (MPI_Info_create_env), else a pointer to it: `char ***argv`
            return 1 if raw["pointer"] is False else 3
        if raw["pointer"] is not None and not raw["pointer"]:
            return 0
        if kind == "STRING_2DARRAY":
            return 2
        if kind == "STRING" and raw["length"] == "*" and not raw["pointer"]:
            return 0
        if kind in POINTER_KINDS:
            return 1
        if (raw["param_direction"] in ("inout", "out") or raw["pointer"]) \
                and raw["length"] is None:
            return 1
        return 0

    def array_suffix(self):
        raw = self.raw
        kind, length = self.kind, raw["length"]
        if kind == "C_BUFFER4":
            return ""
        if kind == "ARGUMENT_LIST":
            return "[]" if raw["pointer"] is False else ""
        if isinstance(length, list):
            return "[][%s]" % length[1]
        if kind != "STRING" and length is not None and not raw["pointer"]:
            return "[]"
        if kind == "STRING" and length == "*" and not raw["pointer"]:
            return "[]"
        if kind in ("STRING_ARRAY", "STRING_2DARRAY"):
            return "[]"
        return ""

    def is_const(self):
        # the JSON has both true and "true" (MPI_Pready_list, MPI_Psend_init)
        return self.raw["constant"] in (True, "true")

    def decl(self):
        if self.is_varargs:
            return "..."
        const = "const " if self.is_const() else ""
        stars = "*" * self.pointer_level()
        return "%s%s %s%s%s" % (const, self.base_type(), stars, self.name,
                                self.array_suffix())

    def is_value_handle(self, ctype):
        """A by-value, non-array input of handle type ctype."""
        return (not self.is_varargs and self.base_type() == ctype
                and self.pointer_level() == 0 and self.array_suffix() == "")


class Function:
    """One C function: a procedure in one binding."""

    def __init__(self, proc, binding):
        self.proc = proc
        self.binding = binding
        self.name = proc["name"] + ("_c" if binding == LARGE else "")
        self.params = [Param(p, binding) for p in proc["parameters"]
                       if "c_parameter" not in p["suppress"].split()
                       and (binding == LARGE or not p["large_only"])]
        self.return_kind = proc["return_kind"]

    @property
    def pname(self):
        return "P" + self.name

    def return_type(self):
        kind = self.return_kind
        if kind in C_POLY_KIND:
            return C_POLY_KIND[kind][1 if self.binding == LARGE else 0]
        if kind not in C_KIND:
            raise GenError("unknown return kind %s of %s" % (kind, self.name))
        return C_KIND[kind]

    def param_list(self):
        if not self.params:
            return "void"
        return ", ".join(p.decl() for p in self.params)

    def prototype(self, name=None):
        return "%s %s(%s)" % (self.return_type(), name or self.name, self.param_list())

    @property
    def is_tool(self):
        return self.name.startswith("MPI_T_")

    @property
    def deprecated(self):
        # MPI 5.0's JSON marks no procedure deprecated (all 567 say false)
        return bool(self.proc["attributes"].get("deprecated"))


def has_large_binding(proc):
    """pympistandard Procedure.has_embiggenment(): any POLY kind."""
    return any(p["kind"].startswith("POLY") for p in proc["parameters"]) \
        or proc["return_kind"].startswith("POLY")


def load_standard(std_dir):
    with open(os.path.join(std_dir, "mpi-standard-5.0-abi.json")) as f:
        abi = json.load(f)
    with open(os.path.join(std_dir, "mpi-standard-5.0-apis.json")) as f:
        apis = json.load(f)
    return abi, apis


def split_procedures(apis):
    """-> (functions, callbacks) as sorted lists of Function.

    Functions: C-expressible procedures that are neither callbacks nor
    predefined callback functions (MPI_COMM_DUP_FN & co. are constants in
    the standard ABI)."""
    functions, callbacks = [], []
    for proc in apis.values():
        attrs = proc["attributes"]
        if not attrs["c_expressible"] or attrs["predefined_function"]:
            continue
        target = callbacks if attrs["callback"] else functions
        target.append(Function(proc, SMALL))
        if has_large_binding(proc):
            target.append(Function(proc, LARGE))
    functions.sort(key=lambda f: f.name)
    callbacks.sort(key=lambda f: f.name)
    return functions, callbacks


# ---------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------

class Constant:
    def __init__(self, raw):
        self.raw = raw
        self.name = raw["name"]
        self.category = raw["category"]
        self.value = raw["abi_value"]
        c = raw.get("handle_types", {}).get("c") or {}
        self.ctype = c.get("type")

    def is_c(self):
        """Constants with a C type and an integer ABI value go in mpi.h.
        (The Fortran-only ones -- MPI_STATUS_SIZE, MPI_SOURCE as a Fortran
        index, MPI_ADDRESS_KIND... -- have no C type in the JSON.)"""
        return self.ctype is not None and isinstance(self.value, int) \
            and not isinstance(self.value, bool)

    def c_expr(self, int_types):
        """The macro body."""
        t, v = self.ctype.strip(), self.value
        if t == "int":
            return str(v) if v >= 0 else "(%d)" % v
        if t in int_types:
            return "((%s)%d)" % (t, v)
        # pointer-valued: handles, addresses, function pointers
        t = re.sub(r"\s*\*", " *", t).replace("  ", " ")
        return "((%s)0x%08x)" % (t, v) if v >= 16 else "((%s)%d)" % (t, v)


def tex_to_text(s):
    """The JSON's category titles are LaTeX: "... the \\MPI/ tool ..."."""
    s = s.replace("\\MPI/", "MPI")
    s = re.sub(r"\\[A-Za-z]+\{([^}]*)\}", r"\1", s)
    return s.replace("\\", "")


def c_constants(abi):
    """-> list of (category name, category title, [Constant]) in JSON order."""
    cats = abi["categories"]
    order = {c["name"]: i for i, c in enumerate(cats.values())}
    titles = {c["name"]: tex_to_text(c.get("name_tex") or c["name"])
              for c in cats.values()}
    groups = {}
    seen = set()
    for raw in abi["constants"].values():
        k = Constant(raw)
        if not k.is_c():
            continue
        if k.name in seen:
            raise GenError("constant %s defined twice" % k.name)
        seen.add(k.name)
        groups.setdefault(k.category, []).append(k)
    return [(cat, titles.get(cat, cat), groups[cat])
            for cat in sorted(groups, key=lambda c: order.get(c, len(order)))]


def null_handles(abi):
    """C handle type -> its NULL constant's name (MPI_COMM_NULL...)."""
    out = {}
    for raw in abi["constants"].values():
        k = Constant(raw)
        if k.is_c() and k.name.endswith("_NULL") and k.ctype.startswith("MPI_"):
            out.setdefault(k.ctype, k.name)
    return out


# ---------------------------------------------------------------------------
# include/mpi.h
# ---------------------------------------------------------------------------

def gen_header(abi, functions, callbacks):
    meta = abi["metadata"]
    out = []
    w = out.append
    w("/* mpi.h -- smartmap's MPI %d.%d header, standard ABI %d.%d."
      % (meta["mpi"]["version"], meta["mpi"]["subversion"],
         meta["abi"]["version"], meta["abi"]["subversion"]))
    w(" *")
    w(" * " + wrap_comment(GENERATED_NOTE, " * "))
    w(" */")
    w("#ifndef MPI_H_ABI")
    w("#define MPI_H_ABI")
    w("")
    w("#include <stdint.h>")
    w("")
    w("#if defined(__cplusplus)")
    w('extern "C" {')
    w("#endif")
    w("")
    w("#define SMARTMAP_MPI 1")
    w("#define SMARTMAP_MPI_ABI 1")
    w("")
    w("/* Exported from libmpi (built with hidden visibility). */")
    w("#if defined(SMAP_BUILDING_LIBRARY) && (defined(__GNUC__) || defined(__clang__))")
    w('#define MPI_API __attribute__((visibility("default")))')
    w("#else")
    w("#define MPI_API")
    w("#endif")
    w("")
    if any(fn.deprecated for fn in functions):
        # Only the MPI_ name is marked: the library defines PMPI_Foo and the
        # MPI_Foo forwarders without referring to a deprecated declaration.
        w("/* Deprecated in the standard: warns where a program calls one. */")
        w("#if (defined(__GNUC__) || defined(__clang__)) && !defined(SMAP_BUILDING_LIBRARY)")
        w("#define MPI_DEPRECATED __attribute__((deprecated))")
        w("#else")
        w("#define MPI_DEPRECATED")
        w("#endif")
        w("")
    w("/* ---- Integer types (ABI: MPI_Aint = intptr_t, MPI_Offset = MPI_Count = int64_t) ---- */")
    w("typedef intptr_t MPI_Aint;")
    w("typedef int64_t  MPI_Offset;")
    w("typedef int64_t  MPI_Count;")
    w("typedef int      MPI_Fint;")
    w("")
    w("/* ---- Status: 3 public ints + 5 reserved, exactly 8 ints ---- */")
    w("typedef struct MPI_Status {")
    w("    int MPI_SOURCE;")
    w("    int MPI_TAG;")
    w("    int MPI_ERROR;")
    w("    int MPI_internal[5];")
    w("} MPI_Status;")
    w("")
    w("/* The Fortran 2008 status as seen from C (same layout, MPI_Fint fields). */")
    w("typedef struct MPI_F08_status {")
    w("    MPI_Fint MPI_SOURCE;")
    w("    MPI_Fint MPI_TAG;")
    w("    MPI_Fint MPI_ERROR;")
    w("    MPI_Fint MPI_internal[5];")
    w("} MPI_F08_status;")
    w("")
    w("/* ---- Opaque handles: pointers to incomplete structs ---- */")
    for t, s in ABI_HANDLE_TYPES + ABI_TOOL_HANDLE_TYPES:
        w("typedef struct %s *%s;" % (s, t))
    for t in ABI_TOOL_INT_TYPES:
        w("typedef int %s;" % t)
    w("")
    w("/* ---- Callback function types ---- */")
    for cb in callbacks:
        w("typedef %s;" % cb.prototype())
    w("")
    w("/* ---- Constants ---- */")
    int_types = set(ABI_TOOL_INT_TYPES)
    for cat, title, consts in c_constants(abi):
        w("")
        w("/* %s */" % title)
        width = max(len(k.name) for k in consts) + 1
        for k in consts:
            w("#define %-*s %s" % (width, k.name, k.c_expr(int_types)))
    w("")
    w("/* ---- Functions: MPI_ and the PMPI_ profiling twin of each ---- */")
    for fn in functions:
        w("")
        dep = "MPI_DEPRECATED " if fn.deprecated else ""
        w("MPI_API %s%s;" % (dep, fn.prototype()))
        w("MPI_API %s;" % fn.prototype(fn.pname))
    w("")
    w("#if defined(__cplusplus)")
    w("}")
    w("#endif")
    w("")
    w("#endif /* MPI_H_ABI */")
    return "\n".join(out) + "\n"


def wrap_comment(text, prefix, width=78):
    words, lines, cur = text.split(), [], ""
    for word in words:
        if cur and len(prefix) + len(cur) + 1 + len(word) > width:
            lines.append(cur)
            cur = word
        else:
            cur = (cur + " " + word) if cur else word
    lines.append(cur)
    return ("\n" + prefix).join(lines)


# ---------------------------------------------------------------------------
# Hand-written definitions
# ---------------------------------------------------------------------------

DEF_RE = re.compile(r"^(?:[A-Za-z_]\w*[\s\*]+)*?P?(MPI_\w+)\s*\(", re.M)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def is_definition(text, open_paren):
    """True when the '(' at open_paren starts a parameter list followed by a
    function body (not a declaration or a call)."""
    depth = 0
    i = open_paren
    while i < len(text):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                break
        i += 1
    rest = text[i + 1:].lstrip()
    # attributes between ')' and '{' are allowed
    while rest.startswith("__attribute__"):
        j = rest.find("((")
        depth, k = 0, j
        while k < len(rest):
            if rest[k] == "(":
                depth += 1
            elif rest[k] == ")":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        rest = rest[k + 1:].lstrip()
    return rest.startswith("{")


def scan_hand_written(root):
    """-> {"PMPI": {name: file}, "MPI": {name: file}} of the functions that
    the hand-written src/binding/*.c (not gen_*.c) define, by the MPI_ name.
    A definition starts at the beginning of a line, the return type may come
    first on the same line: `int PMPI_Init(int *argc, char ***argv)`."""
    found = {"PMPI": {}, "MPI": {}}
    bdir = os.path.join(root, "src", "binding")
    if not os.path.isdir(bdir):
        return found
    for fname in sorted(os.listdir(bdir)):
        if not fname.endswith(".c") or fname.startswith("gen_"):
            continue
        with open(os.path.join(bdir, fname), encoding="utf-8", errors="replace") as f:
            text = strip_comments(f.read())
        for m in DEF_RE.finditer(text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            head = text[line_start:m.end()]
            if head.lstrip().startswith(("return", "else", "if", "#")):
                continue
            if not is_definition(text, m.end() - 1):
                continue
            is_pmpi = re.search(r"\bPMPI_\w+\s*\($", head) is not None
            found["PMPI" if is_pmpi else "MPI"].setdefault(m.group(1), fname)
    return found


# ---------------------------------------------------------------------------
# src/binding/gen_pmpi_aliases.c
# ---------------------------------------------------------------------------

def call_args(fn):
    return ", ".join(p.name for p in fn.params if not p.is_varargs)


def gen_aliases(functions, hand):
    out = []
    w = out.append
    w("/* MPI_Foo -> PMPI_Foo for every function of MPI 5.0 (the profiling")
    w(" * interface, MPI-5.0 section 15.2).")
    w(" *")
    w(" * " + wrap_comment(GENERATED_NOTE, " * "))
    w(" *")
    w(" * " + wrap_comment(
        "PMPI_Foo is the implementation (hand-written in src/binding/, or "
        "the stub in gen_unsupported.c); MPI_Foo forwards to it. GCC and "
        "Clang can alias a symbol only inside the translation unit that "
        "defines it, so MPI_Foo cannot be an alias of a PMPI_Foo defined "
        "elsewhere: here it is a forwarding function (one jump), made weak "
        "where the compiler supports it so that a statically linked tool can "
        "replace it. A hand-written file may instead define MPI_Foo itself "
        "(e.g. as a same-file weak alias); then it is left out here.", " * "))
    w(" */")
    w("#include <mpi.h>")
    w("")
    w('#include "base/compiler.h"')
    w("")
    w("#if defined(SMAP_HAVE_WEAK_ALIAS) && SMAP_HAVE_WEAK_ALIAS && !defined(SMAP_NO_WEAK_ALIAS)")
    w("#define SMAP_PMPI_WEAK __attribute__((weak))")
    w("#else")
    w("#define SMAP_PMPI_WEAK")
    w("#endif")
    for fn in functions:
        if fn.name in hand["MPI"]:
            w("")
            w("/* %s: defined in src/binding/%s */" % (fn.name, hand["MPI"][fn.name]))
            continue
        w("")
        w("SMAP_PMPI_WEAK %s" % fn.prototype())
        w("{")
        if any(p.is_varargs for p in fn.params):
            w("    /* the variable arguments are not forwarded (PMPI_%s ignores them) */"
              % fn.name[4:])
        call = "%s(%s)" % (fn.pname, call_args(fn))
        if fn.return_type() == "void":
            w("    %s;" % call)
        else:
            w("    return %s;" % call)
        w("}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# src/binding/gen_unsupported.c
# ---------------------------------------------------------------------------

ERROR_RETURN_KINDS = ("ERROR_CODE", "ERROR_CLASS")


def stub_comm(fn):
    for p in fn.params:
        if p.raw["param_direction"] == "in" and p.is_value_handle("MPI_Comm"):
            return p.name
    return "MPI_COMM_NULL"


def zero_value(fn, nulls):
    rtype = fn.return_type()
    if rtype in nulls:
        return nulls[rtype]
    if rtype == "double":
        return "0.0"
    if rtype in ("int", "MPI_Aint", "MPI_Count", "MPI_Offset", "MPI_Fint"):
        return "0"
    raise GenError("no zero value for return type %s of %s" % (rtype, fn.name))


def gen_stubs(functions, hand, nulls):
    out = []
    w = out.append
    w("/* PMPI_ definitions of the MPI functions smartmap does not implement yet:")
    w(" * each raises MPI_ERR_UNSUPPORTED_OPERATION through the error handler")
    w(" * (MPI_T_ functions return MPI_T_ERR_NOT_SUPPORTED).")
    w(" *")
    w(" * " + wrap_comment(GENERATED_NOTE, " * "))
    w(" * " + wrap_comment(
        "A function leaves this file when a hand-written file in src/binding/ "
        "defines PMPI_<name> at the start of a line; run `make regen` after "
        "adding one.", " * "))
    w(" */")
    w("#include <mpi.h>")
    w("")
    w('#include "mpi/errors.h"')
    for fn in functions:
        if fn.name in hand["PMPI"]:
            continue
        w("")
        w("%s" % fn.prototype(fn.pname))
        w("{")
        for p in fn.params:
            if not p.is_varargs:
                w("    (void)%s;" % p.name)
        if fn.is_tool:
            if fn.return_kind not in ERROR_RETURN_KINDS:
                raise GenError("tool function %s does not return an error code" % fn.name)
            w('    return smap_err_tool_unsupported("%s");' % fn.name)
        elif fn.return_kind in ERROR_RETURN_KINDS:
            w('    return smap_err_unsupported(%s, "%s");' % (stub_comm(fn), fn.name))
        else:
            w('    (void)smap_err_unsupported(%s, "%s");' % (stub_comm(fn), fn.name))
            w("    return %s;" % zero_value(fn, nulls))
        w("}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# docs/STATUS.md
# ---------------------------------------------------------------------------

# Areas of the standard, by name prefix (first match wins; ordered).
AREAS = [
    ("Tool information interface (MPI_T_)", r"^MPI_T_"),
    ("Environment, initialization, errors", r"^MPI_(Init|Finalize|Initialized|Finalized|Abort|Query_thread|Is_thread_main|Get_version|Get_library_version|Get_processor_name|Get_hw_resource_info|Wtime|Wtick|Pcontrol|Error_|Add_error|Remove_error|Errhandler_|Abi_|Alloc_mem|Free_mem|Buffer_|Comm_attach_buffer|Comm_detach_buffer|Comm_flush_buffer|Comm_iflush_buffer|Session_attach_buffer|Session_detach_buffer|Session_flush_buffer|Session_iflush_buffer)"),
    ("Sessions", r"^MPI_Session_|^MPI_Group_from_session_pset"),
    ("One-sided communication (RMA)", r"^MPI_(Win_|Put|Get$|Get_c$|Rput|Rget|Accumulate|Raccumulate|Get_accumulate|Rget_accumulate|Fetch_and_op|Compare_and_swap)"),
    ("File I/O", r"^MPI_(File_|Register_datarep)"),
    ("Process creation and management", r"^MPI_(Comm_spawn|Comm_get_parent|Comm_accept|Comm_connect|Comm_disconnect|Comm_join|Open_port|Close_port|Publish_name|Unpublish_name|Lookup_name)"),
    ("Topologies", r"^MPI_(Cart|Graph|Dist_graph|Dims_create|Topo_test|Neighbor_|Ineighbor_)"),
    ("Collective communication", r"^MPI_(Barrier|Ibarrier|Bcast|Ibcast|Gather|Igather|Scatter|Iscatter|Allgather|Iallgather|Alltoall|Ialltoall|Reduce|Ireduce|Allreduce|Iallreduce|Scan|Iscan|Exscan|Iexscan|Op_|Reduce_local)"),
    ("Groups, communicators, attributes", r"^MPI_(Group_|Comm_|Intercomm_|Attr_|Keyval_)"),
    ("Datatypes", r"^MPI_(Type_|Pack|Unpack|Get_address|Aint_|Get_elements|Get_count|Status_set_elements)"),
    ("Point-to-point communication", r"^MPI_(Send|Bsend|Ssend|Rsend|Isend|Ibsend|Issend|Irsend|Recv|Irecv|Mrecv|Imrecv|Sendrecv|Isendrecv|Probe|Iprobe|Mprobe|Improbe|Psend|Precv|Pready|Parrived|Start|Wait|Test|Cancel|Request_|Grequest_|Status_)"),
    ("Info objects", r"^MPI_Info_"),
    ("Language interoperability", r"^MPI_\w+_(c2f|f2c|c2f08|f082c|f082f|f2f08|toint|fromint)$"),
]


# What an area's count does not say: limits of functions counted as
# implemented, printed under the table of areas (the folder's README has
# the detail).
AREA_NOTES = [
    ("Point-to-point communication", "partitioned communication (MPI_Psend_init, "
     "MPI_Precv_init and their MPI_Pready/MPI_Parrived) reaches ranks of the same node "
     "only: with a peer on another node the init call fails with "
     "MPI_ERR_UNSUPPORTED_OPERATION naming the rank."),
    ("File I/O", "collective data access is two-phase (writes: one aggregator per node "
     "copying the node's ranks' buffers through SMARTMAP, double-buffered; reads: every "
     "rank of the node aggregates a share; other nodes' pieces "
     "by alltoallv, window by window) with romio_cb_* enable, or automatic and "
     "interleaved accesses; otherwise each rank's own access.  Nonblocking independent "
     "calls use io_uring when built with liburing; nonblocking and split collectives "
     "progress through MPI_Test/MPI_Wait when two-phase applies (otherwise their access "
     "runs in one poll).  Independent accesses sieve small pieces (reads and writes; "
     "writes under fcntl locks, on a device also dense pieces up to 8 KiB), read runs of "
     "pieces with small holes by one preadv, and start the writeback of what they wrote "
     "as they go.  Data "
     "representations native, internal, external32, registered.  The shared file "
     "pointer is a shared-memory counter on one node, a fetch-and-op window across "
     "nodes.  See src/io/README.md."),
    ("Process creation and management", "processes of another job (spawned children, "
     "jobs connected through a port or join) on the same node are SMARTMAP peers (shm "
     "queues, single copy; up to `SMAP_SPAWN_PEERS` of them per process over its life, "
     "the next ones through src/net); those on other nodes are reached through src/net "
     "(libfabric); their collectives are schedules over point-to-point (no control "
     "block); spawn needs smrun's or hydra's PMI-1 or Open MPI's mpirun (PMIx_Spawn; "
     "not PMI-2), names smrun's, hydra's or mpirun's name service.  See "
     "src/spawn/README.md."),
]


def area_of(name):
    # interoperability functions first: they carry many object prefixes
    for title, pattern in AREAS[-1:] + AREAS[:-1]:
        if re.search(pattern, name):
            return title
    return "Other"


def gen_status(functions, hand):
    total = len(functions)
    impl = [f for f in functions if f.name in hand["PMPI"]]
    tool = [f for f in functions if f.name not in hand["PMPI"] and f.is_tool]
    unsup = [f for f in functions if f.name not in hand["PMPI"] and not f.is_tool]
    out = []
    w = out.append
    w("# smartmap: MPI 5.0 function status")
    w("")
    w("<!-- " + GENERATED_NOTE + " -->")
    w("")
    w("This file is generated by `make regen` (scripts/gen_mpi.py) and checked "
      "by a test, so it always matches the code.")
    w("")
    w("**%d of %d** C functions of MPI 5.0 are implemented (counting the "
      "large-count `_c` variants as functions of their own; every one also "
      "exists as `PMPI_`)." % (len(impl), total))
    w("")
    w("| | functions |")
    w("|---|---:|")
    w("| implemented | %d |" % len(impl))
    w("| not implemented: return `MPI_ERR_UNSUPPORTED_OPERATION` through the error handler | %d |" % len(unsup))
    w("| tool interface, not implemented: return `MPI_T_ERR_NOT_SUPPORTED` | %d |" % len(tool))
    w("| total | %d |" % total)
    w("")
    w("## By area")
    w("")
    w("| area | implemented | not implemented |")
    w("|---|---:|---:|")
    by_area = {}
    for f in functions:
        by_area.setdefault(area_of(f.name), []).append(f)
    area_order = [t for t, _ in AREAS] + ["Other"]
    for title in area_order:
        fs = by_area.get(title)
        if not fs:
            continue
        n_impl = sum(1 for f in fs if f.name in hand["PMPI"])
        w("| %s | %d | %d |" % (title, n_impl, len(fs) - n_impl))
    if AREA_NOTES:
        w("")
        for title, note in AREA_NOTES:
            w("- **%s:** %s" % (title, note))
    for heading, group in (
            ("Implemented", impl),
            ("Not implemented (returns MPI_ERR_UNSUPPORTED_OPERATION)", unsup),
            ("MPI_T, not implemented (returns MPI_T_ERR_NOT_SUPPORTED)", tool)):
        w("")
        w("## %s (%d)" % (heading, len(group)))
        areas = {}
        for f in group:
            areas.setdefault(area_of(f.name), []).append(f)
        for title in area_order:
            fs = areas.get(title)
            if not fs:
                continue
            w("")
            w("### %s (%d)" % (title, len(fs)))
            w("")
            w(", ".join("`%s`" % f.name for f in fs))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def generate(root, std_dir):
    abi, apis = load_standard(std_dir)
    functions, callbacks = split_procedures(apis)
    names = {f.name for f in functions}
    hand = scan_hand_written(root)
    # the generated thin entry points count as definitions; a function is
    # either generated or hand-written, never both
    for name, path in sorted(gen_binding.generated_names(functions).items()):
        if name in hand["PMPI"]:
            raise GenError("%s is generated (%s) and hand-written in src/binding/%s"
                           % (name, path, hand["PMPI"][name]))
        hand["PMPI"][name] = path
    for kind in ("PMPI", "MPI"):
        for name in sorted(hand[kind]):
            if name not in names:
                print("gen_mpi.py: note: src/binding/%s defines %s_%s, which is "
                      "not an MPI 5.0 C function" % (hand[kind][name], kind, name[4:]),
                      file=sys.stderr)
    outputs = gen_binding.generate(functions, wrap_comment, GENERATED_NOTE)
    outputs.update({
        OUT_HEADER: gen_header(abi, functions, callbacks),
        OUT_ALIASES: gen_aliases(functions, hand),
        OUT_STUBS: gen_stubs(functions, hand, null_handles(abi)),
        OUT_STATUS: gen_status(functions, hand),
    })
    return outputs


def write_outputs(root, outputs, check, prog):
    """Writes each generated file that differs from the committed one, or
    with check, writes nothing and reports them; returns the exit status.
    Shared by gen_fortran.py (prog: the script's name in messages)."""
    stale = 0
    for rel in sorted(outputs):
        path = os.path.join(root, rel)
        try:
            with open(path, encoding="utf-8") as f:
                old = f.read()
        except OSError:
            old = None
        new = outputs[rel]
        if old == new:
            continue
        if check:
            stale += 1
            if old is None:
                print("%s: missing" % rel)
                continue
            diff = list(difflib.unified_diff(old.splitlines(), new.splitlines(),
                                             "a/" + rel, "b/" + rel, lineterm="", n=1))
            print("%s: differs (%d diff lines); first lines:" % (rel, len(diff)))
            for line in diff[:20]:
                print("    " + line)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
            print("%s: wrote %s" % (prog, rel))
    if check and stale:
        print("%s --check: %d generated file(s) out of date; run `make regen`"
              % (prog, stale))
        return 1
    return 0


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.dirname(here),
                    help="repository root (default: the script's parent directory)")
    ap.add_argument("--std", default=None,
                    help="directory of the MPI Forum JSON (default: ROOT/std)")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 if a committed output differs")
    args = ap.parse_args(argv)
    root = os.path.abspath(args.root)
    std_dir = args.std or os.path.join(root, "std")
    try:
        outputs = generate(root, std_dir)
    except (GenError, OSError, ValueError, KeyError) as e:
        print("gen_mpi.py: error: %s" % e, file=sys.stderr)
        return 2
    return write_outputs(root, outputs, args.check, "gen_mpi.py")


if __name__ == "__main__":
    sys.exit(main())
