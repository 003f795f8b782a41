"""The generated thin binding: src/binding/gen/<family>.c (DESIGN.md §2).

Imported by gen_mpi.py (`make regen`; the test abi_generated_current runs
`--check`).  Each entry point of a family is written from the MPI Forum's
JSON: the argument checks follow from each parameter's kind and direction
(a handle is valid, a count is >= 0, an array is non-NULL when its count
is > 0, an output pointer is non-NULL, a status is not MPI_STATUS_IGNORE),
using the macros of src/binding/check.h; then comes one call into the layer
below, and the error handler's invocation when that call fails (the layer
says why with base/why.h's smap_fail, the binding puts it in the message).

Errors are raised on the function's error target (MPI 5.0 section 9.3):
the first parameter of one of the family's target types (a communicator, a
window, a session; an inout one through its pointer), a row's fixed
target, else MPI_COMM_NULL.  check.h picks the raise by the target's C type
(_Generic), so the same check macros serve every family.

What the JSON cannot say is in FAMILIES below, one row per function: which
internal function is called and with what, and the rare extra check.  A
function listed here is defined only by its generated stub: gen_mpi.py
counts it as implemented and writes no unsupported stub for it.

Python 3 standard library only; the output is deterministic.
"""

import re

OUT_DIR = "src/binding/gen"

# Handle kinds: C type -> (check macro, object type, kind word for messages).
# The macros are in src/binding/check.h; each sets an object pointer
# (`<name>_o`) that the call below receives instead of the handle.
HANDLE_CHECKS = {
    "COMMUNICATOR": ("SMAP_CHECK_COMM_OBJ", "struct MPI_ABI_Comm"),
    "GROUP": ("SMAP_CHECK_GROUP", "struct MPI_ABI_Group"),
    "INFO": ("SMAP_CHECK_INFO", "struct MPI_ABI_Info"),
    "DATATYPE": ("SMAP_CHECK_DTYPE_NAMED", "smap_dtype_t"),
    "OPERATION": ("SMAP_CHECK_OP", "struct MPI_ABI_Op"),
    "WINDOW": ("SMAP_CHECK_WIN_OBJ", "struct MPI_ABI_Win"),
    "SESSION": ("SMAP_CHECK_SESSION_OBJ", "struct MPI_ABI_Session"),
}

# Element counts: MPI_ERR_COUNT when negative.
COUNT_KINDS = {"XFER_NUM_ELEM_NNI", "POLYXFER_NUM_ELEM_NNI", "POLYDTYPE_NUM_ELEM_NNI"}

# Output kinds not checked for NULL: buffers and statuses have their own
# rules (MPI_STATUS_IGNORE, MPI_BOTTOM).  A string is never NULL (an
# output one gets at least its terminating NUL), counted or not.
UNCHECKED_OUT_KINDS = {"BUFFER", "C_BUFFER", "C_BUFFER2", "C_BUFFER3",
                       "C_BUFFER4", "STATUS"}

STATUS_KINDS = ("STATUS", "F90_STATUS", "F08_STATUS")


class Row:
    """How one function reaches the layer below.

    call:   the C call, a template over the parameters: {name} is the
            argument as passed (a checked handle's object: `name_o`),
            {name_h} the handle itself.
    ret:    "rc"    the call returns MPI_SUCCESS or an error class (and
                    recorded why): the stub raises it on the error comm
            "void"  the call cannot fail: the stub returns MPI_SUCCESS
            "value" the stub returns the call's value; no checks at all
            "raised" the call raises its own errors (it takes the error
                    comm and F) and its value is returned
    skip:   parameters whose kind-derived check is left to the call below
            (or that the standard lets be anything)
    extra:  C statements of checks the kinds do not give, after the others

    running: SMAP_CHECK_RUNNING first (None: as the family says)
    null_ok: info parameters that may be MPI_INFO_NULL (the handle is passed)
    inter:   a communicator parameter that must be an intercommunicator
    intra:   a communicator parameter that must be an intracommunicator
    topo:    (parameter, MPI_CART | MPI_GRAPH | MPI_DIST_GRAPH, words): the
             communicator must have a topology of that kind
    nolen:   counts and the arrays they size are checked below (their
             rules are not the kinds': MPI_ERR_DIMS, sizes from the topology)
    bare:    no check from the kinds: the layer below checks every argument
             (the collectives), only `extra` here
    target:  the error target when it is none of the parameters (MPI 5.0
             section 9.3: MPI_COMM_WORLD's handler for ports and names,
             MPI_COMM_SELF's for MPI_Comm_join)
    only:    the parameters whose kind-derived checks are made here; the layer
             below checks the others (the one-sided operations: the window and
             the request pointer here, their rules that depend on the op there)
    """

    def __init__(self, call, ret="rc", skip=(), extra=(), running=None, null_ok=(),
                 inter=None, intra=None, topo=None, nolen=False, bare=False, only=None,
                 target=None):
        self.call, self.ret, self.skip, self.extra = call, ret, set(skip), list(extra)
        self.target = target
        self.only = None if only is None else set(only)
        self.running, self.null_ok, self.inter = running, set(null_ok), inter
        self.intra, self.topo, self.nolen, self.bare = intra, topo, nolen, bare


class Family:
    def __init__(self, name, doc, includes, rows, running=True, errcomm=None,
                 targets=("MPI_Comm",)):
        self.name = name          # the file: src/binding/gen/<name>.c
        self.doc = doc            # what the family is, for the file's head
        self.includes = includes  # headers of the layer below
        self.rows = rows          # {MPI name: Row}
        self.running = running    # SMAP_CHECK_RUNNING first
        self.errcomm = errcomm    # None: the first valid target argument
        # The handle types errors are raised on (check.h's SMAP_RAISE_ON picks
        # the handler by the C type): the first parameter of one of these
        # types is the target (a window's or a session's functions raise on
        # the window or session, MPI 5.0 section 9.3); none: MPI_COMM_NULL.
        self.targets = targets


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------

HANDLE_TYPES = [  # (prefix in the function name, SMAP_HK_ kind)
    ("Comm", "COMM"), ("Errhandler", "ERRHANDLER"), ("File", "FILE"),
    ("Group", "GROUP"), ("Info", "INFO"), ("Message", "MESSAGE"), ("Op", "OP"),
    ("Request", "REQUEST"), ("Session", "SESSION"), ("Type", "TYPE"), ("Win", "WIN"),
]


def handle_rows():
    rows = {}
    for prefix, kind in HANDLE_TYPES:
        for suffix in ("c2f", "toint"):
            rows["MPI_%s_%s" % (prefix, suffix)] = Row(
                "smap_handle_toint(SMAP_HK_%s, (void *){0})" % kind, ret="value")
        for suffix in ("f2c", "fromint"):
            rows["MPI_%s_%s" % (prefix, suffix)] = Row(
                "({T})smap_handle_fromint(SMAP_HK_%s, {0})" % kind, ret="value")
    # statuses: the same 8-int layout in C, Fortran and Fortran 2008
    for a, b in (("c", "f"), ("f", "c"), ("c", "f08"), ("f08", "c"), ("f08", "f"),
                 ("f", "f08")):
        rows["MPI_Status_%s2%s" % (a, b)] = Row("smap_status_copy({1}, {0})", ret="void")
    return rows


GROUP_ROWS = {
    "MPI_Group_size": Row("smap_group_size_of({group}, {size})", ret="void"),
    "MPI_Group_rank": Row("smap_group_rank_of({group}, {rank})", ret="void"),
    "MPI_Group_compare": Row("smap_group_compare_into({group1}, {group2}, {result})",
                             ret="void"),
    "MPI_Group_translate_ranks": Row(
        "smap_group_translate({group1}, {n}, {ranks1}, {group2}, {ranks2})"),
    "MPI_Group_union": Row("smap_group_set_op(smap_group_union, {group1}, {group2}, {newgroup})"),
    "MPI_Group_intersection": Row(
        "smap_group_set_op(smap_group_intersection, {group1}, {group2}, {newgroup})"),
    "MPI_Group_difference": Row(
        "smap_group_set_op(smap_group_difference, {group1}, {group2}, {newgroup})"),
    "MPI_Group_incl": Row("smap_group_incl({group}, {n}, {ranks}, {newgroup})"),
    "MPI_Group_excl": Row("smap_group_excl({group}, {n}, {ranks}, {newgroup})"),
    "MPI_Group_range_incl": Row("smap_group_range({group}, {n}, {ranges}, 1, {newgroup})"),
    "MPI_Group_range_excl": Row("smap_group_range({group}, {n}, {ranges}, 0, {newgroup})"),
    "MPI_Group_free": Row("smap_group_free_handle({group}, {group_o})"),
    "MPI_Comm_group": Row("smap_group_of_comm({comm}, {group})", ret="void"),
}

INFO_ROWS = {
    "MPI_Info_create": Row("smap_info_create({info})"),
    "MPI_Info_create_env": Row("smap_info_create_env({argc}, {argv}, {info})",
                               skip=["argv"]),  # NULL: /proc/self/cmdline
    "MPI_Info_set": Row("smap_info_set_checked({info}, {key}, {value})"),
    "MPI_Info_delete": Row("smap_info_delete({info}, {key})"),
    "MPI_Info_get": Row("smap_info_get_value({info}, {key}, {valuelen}, {value}, {flag})"),
    # value may be NULL when *buflen is 0: checked below
    "MPI_Info_get_string": Row("smap_info_get_string({info}, {key}, {buflen}, {value}, {flag})",
                               skip=["value"]),
    "MPI_Info_get_valuelen": Row("smap_info_get_valuelen({info}, {key}, {valuelen}, {flag})"),
    "MPI_Info_get_nkeys": Row("smap_info_nkeys({info}, {nkeys})", ret="void"),
    "MPI_Info_get_nthkey": Row("smap_info_nthkey({info}, {n}, {key})"),
    "MPI_Info_dup": Row("smap_info_dup_into({info}, {newinfo})"),
    "MPI_Info_free": Row("smap_info_free_handle({info}, {info_o})"),
    # MPI_INFO_NULL is allowed (no hints): checked below
    "MPI_Comm_set_info": Row("smap_comm_set_info({comm}, {info})", skip=["info"],
                             running=True),
    "MPI_Comm_get_info": Row("smap_comm_get_info({comm}, {info_used})", running=True),
}

ERROR_ROWS = {
    "MPI_Error_class": Row("smap_err_class_of({errorcode}, {errorclass})", running=False),
    "MPI_Error_string": Row("smap_err_string_of({errorcode}, {string}, {resultlen})",
                            running=False),
    "MPI_Add_error_class": Row("smap_user_error_add_class({errorclass})"),
    "MPI_Add_error_code": Row("smap_user_error_add_code({errorclass}, {errorcode})"),
    "MPI_Add_error_string": Row("smap_user_error_add_string({errorcode}, {string})"),
    "MPI_Remove_error_class": Row("smap_user_error_remove_class({errorclass})"),
    "MPI_Remove_error_code": Row("smap_user_error_remove_code({errorcode})"),
    "MPI_Remove_error_string": Row("smap_user_error_remove_string({errorcode})"),
    "MPI_Comm_set_errhandler": Row("smap_comm_set_errhandler({comm}, {errhandler})",
                                   running=False),
    "MPI_Comm_get_errhandler": Row("smap_comm_get_errhandler({comm}, {errhandler})",
                                   ret="void", running=False),
    "MPI_Comm_create_errhandler": Row(
        "smap_errhandler_create_into({comm_errhandler_fn}, {errhandler})", running=False,
        extra=['SMAP_CHECK_ARG(F, MPI_COMM_NULL, comm_errhandler_fn, "comm_errhandler_fn");']),
    "MPI_Comm_call_errhandler": Row("smap_errhandler_invoke({comm_h}, {errorcode})",
                                    ret="void", running=False),
    "MPI_Errhandler_free": Row("smap_errhandler_free_handle({errhandler})", running=False),
}

def status_rows():
    rows = {
        "MPI_Get_count": Row("smap_status_count_int({status}, {datatype}, {count})", ret="void"),
        "MPI_Get_count_c": Row("smap_status_count({status}, {datatype}, {count})", ret="void"),
        "MPI_Get_elements": Row("smap_status_elements_int({status}, {datatype}, {count})"),
        "MPI_Status_set_cancelled": Row("smap_status_set_cancelled({status}, {flag})",
                                        ret="void"),
        "MPI_Test_cancelled": Row("*{flag} = smap_status_cancelled({status})", ret="void"),
    }
    for name in ("MPI_Get_elements_c", "MPI_Get_elements_x"):
        rows[name] = Row("smap_status_elements({status}, {datatype}, {count})")
    for name in ("MPI_Status_set_elements", "MPI_Status_set_elements_c",
                 "MPI_Status_set_elements_x"):
        rows[name] = Row("smap_status_set_elements({status}, {datatype}, {count})")
    # MPI 5.0's field accessors
    for field, arg in (("SOURCE", "source"), ("TAG", "tag"), ("ERROR", "err")):
        rows["MPI_Status_get_%s" % field.lower()] = Row(
            "*{%s} = {status}->MPI_%s" % (arg, field), ret="void")
        rows["MPI_Status_set_%s" % field.lower()] = Row(
            "{status}->MPI_%s = {%s}" % (field, arg), ret="void")
    return rows


def topo_row(call, kind=None, **kw):
    """A topology entry point: comm (or comm_old) an intracommunicator, with
    a topology of `kind` for the queries; counts and arrays checked below."""
    if kind:
        kw["topo"] = ("comm", kind[0], kind[1])
    return Row(call, nolen=True, **kw)


CART = ("MPI_CART", "Cartesian")
GRAPH = ("MPI_GRAPH", "graph")
DIST = ("MPI_DIST_GRAPH", "distributed graph")

TOPO_ROWS = {
    # every argument is checked below: ndims < 0 is MPI_ERR_DIMS, and
    # ndims == 0 lets dims be anything
    "MPI_Dims_create": Row("smap_topo_dims_create({nnodes}, {ndims}, {dims})",
                           skip=["ndims", "dims"], running=False),
    "MPI_Topo_test": Row("*{status} = smap_topo_kind({comm}->topo)", ret="void"),
    # constructors (src/comm/topo_create.c): raised there; reorder is ignored
    "MPI_Cart_create": topo_row(
        "smap_topo_cart_create({comm_old}, {ndims}, {dims}, {periods}, {comm_cart}, F)",
        ret="raised", intra="comm_old"),
    "MPI_Cart_sub": topo_row("smap_topo_cart_sub({comm}, {remain_dims}, {newcomm}, F)", CART,
                             ret="raised"),
    "MPI_Graph_create": topo_row(
        "smap_topo_graph_create({comm_old}, {nnodes}, {index}, {edges}, {comm_graph}, F)",
        ret="raised", intra="comm_old"),
    "MPI_Dist_graph_create_adjacent": topo_row(
        "smap_topo_dist_graph_adjacent({comm_old}, {indegree}, {sources}, {sourceweights}, "
        "{outdegree}, {destinations}, {destweights}, {info}, {comm_dist_graph}, F)",
        ret="raised", intra="comm_old", skip=["info"]),
    "MPI_Dist_graph_create": topo_row(
        "smap_topo_dist_graph({comm_old}, {n}, {sources}, {degrees}, {destinations}, "
        "{weights}, {info}, {comm_dist_graph}, F)", ret="raised", intra="comm_old",
        skip=["info"]),
    # the identity mappings and the queries (src/topo/query.c)
    "MPI_Cart_map": topo_row(
        "smap_cart_map({ndims}, {dims}, {periods}, {comm}->size, {comm}->rank, {newrank})",
        intra="comm"),
    "MPI_Graph_map": topo_row(
        "smap_graph_map({nnodes}, {index}, {edges}, {comm}->size, {comm}->rank, {newrank})",
        intra="comm"),
    "MPI_Cartdim_get": topo_row("*{ndims} = {comm}->topo->ndims", CART, ret="void"),
    "MPI_Cart_get": topo_row(
        "smap_cart_get({comm}->topo, {maxdims}, {dims}, {periods}, {coords})", CART),
    "MPI_Cart_rank": topo_row("smap_cart_rank({comm}->topo, {coords}, {rank})", CART),
    "MPI_Cart_coords": topo_row(
        "smap_cart_coords({comm}->topo, {comm}->size, {rank}, {maxdims}, {coords})", CART),
    "MPI_Cart_shift": topo_row(
        "smap_cart_shift_checked({comm}->topo, {direction}, {disp}, {rank_source}, "
        "{rank_dest})", CART),
    "MPI_Graphdims_get": topo_row("smap_graph_dims({comm}->topo, {nnodes}, {nedges})", GRAPH,
                                  ret="void"),
    "MPI_Graph_get": topo_row(
        "smap_graph_get({comm}->topo, {maxindex}, {maxedges}, {index}, {edges})", GRAPH),
    "MPI_Graph_neighbors_count": topo_row(
        "smap_graph_neighbors_count({comm}->topo, {rank}, {nneighbors})", GRAPH),
    "MPI_Graph_neighbors": topo_row(
        "smap_graph_neighbors({comm}->topo, {rank}, {maxneighbors}, {neighbors})", GRAPH),
    "MPI_Dist_graph_neighbors_count": topo_row(
        "smap_dist_graph_counts({comm}->topo, {indegree}, {outdegree}, {weighted})", DIST,
        ret="void"),
    "MPI_Dist_graph_neighbors": topo_row(
        "smap_dist_graph_neighbors({comm}->topo, {maxindegree}, {sources}, {sourceweights}, "
        "{maxoutdegree}, {destinations}, {destweights})", DIST),
}

ENVIRONMENT_ROWS = {
    "MPI_Wtime": Row("smap_now()", ret="value"),
    "MPI_Wtick": Row("smap_tick()", ret="value"),
    # Addresses are plain integers in our address space (MPI_Aint is
    # intptr_t); unsigned arithmetic keeps wrap-around defined.
    "MPI_Aint_add": Row("(MPI_Aint)((uintptr_t){base} + (uintptr_t){disp})", ret="value"),
    "MPI_Aint_diff": Row("(MPI_Aint)((uintptr_t){addr1} - (uintptr_t){addr2})", ret="value"),
    # Without a profiling library there is nothing to control: the standard
    # makes this a no-op, and instrumented programs call it freely.
    "MPI_Pcontrol": Row("((void){level}, MPI_SUCCESS)", ret="value"),
    "MPI_Get_processor_name": Row("smap_env_processor_name({name}, {resultlen})", ret="void",
                                  running=True),
    "MPI_Get_version": Row("smap_env_version({version}, {subversion})", ret="void"),
    "MPI_Get_library_version": Row("smap_env_library_version({version}, {resultlen})",
                                   ret="void"),
    "MPI_Abi_get_version": Row("smap_env_abi_version({abi_major}, {abi_minor})", ret="void"),
}

OP_ROWS = {
    "MPI_Op_create": Row("smap_op_create_into({user_fn}, NULL, {commute}, {op})"),
    "MPI_Op_create_c": Row("smap_op_create_into(NULL, {user_fn}, {commute}, {op})"),
    "MPI_Op_free": Row("smap_op_free_handle({op}, {op_o})"),
    "MPI_Op_commutative": Row("*{commute} = {op}->commute", ret="void", running=False),
}
for _name in ("MPI_Reduce_local", "MPI_Reduce_local_c"):
    OP_ROWS[_name] = Row("smap_op_reduce_local({inbuf}, {inoutbuf}, {count}, {datatype_h}, "
                         "{datatype}, {op_h}, {op})")

def attr_rows():
    """Keyvals and attributes of communicators (also the deprecated MPI-1
    names), datatypes, and windows' keyvals: src/mpi/attr.c raises its own
    errors (keyval checks, callbacks' failures) on the comm it is given."""
    rows = {}
    for kind, create, free in (("COMM", "MPI_Comm_create_keyval", "MPI_Comm_free_keyval"),
                               ("COMM", "MPI_Keyval_create", "MPI_Keyval_free"),
                               ("TYPE", "MPI_Type_create_keyval", "MPI_Type_free_keyval"),
                               ("WIN", "MPI_Win_create_keyval", "MPI_Win_free_keyval")):
        rows[create] = Row("smap_keyval_create(SMAP_OBJ_%s, (smap_attr_fn *){0}, "
                           "(smap_attr_fn *){1}, {3}, {2}, F)" % kind, ret="raised")
        rows[free] = Row("smap_keyval_free(SMAP_OBJ_%s, {0}, F)" % kind, ret="raised")
    # attribute_val of the getters is a void ** in C (MPI-5.0 7.7.2)
    comm = "SMAP_OBJ_COMM, {0}->handle, &{0}->attrs"
    typ = "SMAP_OBJ_TYPE, smap_dtype_handle({0}), &{0}->attrs"
    for obj, setter, getter, deleter in (
            (comm, "MPI_Comm_set_attr", "MPI_Comm_get_attr", "MPI_Comm_delete_attr"),
            (comm, "MPI_Attr_put", "MPI_Attr_get", "MPI_Attr_delete"),
            (typ, "MPI_Type_set_attr", "MPI_Type_get_attr", "MPI_Type_delete_attr")):
        rows[setter] = Row("smap_attr_set(%s, {1}, {2}, {errc}, F)" % obj, ret="raised")
        rows[getter] = Row("smap_attr_get(%s, {1}, (void **){2}, {3}, {errc}, F)" % obj,
                           ret="raised")
        rows[deleter] = Row("smap_attr_delete(%s, {1}, {errc}, F)" % obj, ret="raised")
    return rows


ABI_ROWS = {
    "MPI_Abi_get_info": Row("smap_abi_get_info_into({info})"),
    "MPI_Abi_get_fortran_info": Row("smap_abi_get_fortran_info_into({info})"),
    "MPI_Abi_set_fortran_info": Row("smap_abi_set_fortran_info_from({info})"),
    "MPI_Abi_set_fortran_booleans": Row(
        "smap_abi_set_booleans({logical_size}, {logical_true}, {logical_false})",
        extra=['SMAP_CHECK_ARG(F, MPI_COMM_NULL, logical_true, "logical_true");',
               'SMAP_CHECK_ARG(F, MPI_COMM_NULL, logical_false, "logical_false");']),
    "MPI_Abi_get_fortran_booleans": Row(
        "smap_abi_get_booleans({logical_size}, {logical_true}, {logical_false}, {is_set})"),
    "MPI_Get_hw_resource_info": Row("smap_hw_resource_info_into({hw_info})", running=True),
}

MEMORY_ROWS = {
    # MPI_INFO_NULL is allowed (no hints): checked below
    "MPI_Alloc_mem": Row("smap_mem_alloc_into({size}, {info}, {baseptr})", skip=["info"],
                         extra=['SMAP_CHECK_ARG(F, MPI_COMM_WORLD, baseptr, "baseptr");']),
    "MPI_Free_mem": Row("smap_mem_free_checked({base})"),
}

# The constructors (src/mpi/type_create.c checks every argument and raises):
# name -> (call, extra checks).
TYPE_CREATE = {
    'MPI_Type_contiguous': ('smap_type_contiguous(F, 0, {count}, {oldtype}, {newtype})', []),
    'MPI_Type_contiguous_c': ('smap_type_contiguous(F, 1, {count}, {oldtype}, {newtype})', []),
    'MPI_Type_create_darray': ('smap_type_darray(F, 0, {size}, {rank}, {ndims}, {array_of_gsizes}, NULL, {array_of_distribs}, {array_of_dargs}, {array_of_psizes}, {order}, {oldtype}, {newtype})', []),
    'MPI_Type_create_darray_c': ('smap_type_darray(F, 1, {size}, {rank}, {ndims}, NULL, {array_of_gsizes}, {array_of_distribs}, {array_of_dargs}, {array_of_psizes}, {order}, {oldtype}, {newtype})', []),
    'MPI_Type_create_hindexed': ('smap_type_blocks(F, &(struct blocks_args){{.combiner = MPI_COMBINER_HINDEXED, .bytes = 1, .per_block_bl = 1, .count = {count}, .bl_i = {array_of_blocklengths}, .disp_a = {array_of_displacements}, .oldtype = oldtype}}, {newtype})', []),
    'MPI_Type_create_hindexed_block': ('smap_type_blocks(F, &(struct blocks_args){{.combiner = MPI_COMBINER_HINDEXED_BLOCK, .bytes = 1, .count = {count}, .bl_all = {blocklength}, .disp_a = {array_of_displacements}, .oldtype = oldtype}}, {newtype})', ['if (blocklength < 0) return smap_type_bad_blocklength(F, 0, blocklength);']),
    'MPI_Type_create_hindexed_block_c': ('smap_type_blocks(F, &(struct blocks_args){{.combiner = MPI_COMBINER_HINDEXED_BLOCK, .large = 1, .bytes = 1, .count = {count}, .bl_all = {blocklength}, .disp_c = {array_of_displacements}, .oldtype = oldtype}}, {newtype})', ['if (blocklength < 0) return smap_type_bad_blocklength(F, 0, blocklength);']),
    'MPI_Type_create_hindexed_c': ('smap_type_blocks(F, &(struct blocks_args){{.combiner = MPI_COMBINER_HINDEXED, .large = 1, .bytes = 1, .per_block_bl = 1, .count = {count}, .bl_c = {array_of_blocklengths}, .disp_c = {array_of_displacements}, .oldtype = oldtype}}, {newtype})', []),
    'MPI_Type_create_hvector': ('smap_type_vector(F, 0, 1, {count}, {blocklength}, {stride}, {oldtype}, {newtype})', []),
    'MPI_Type_create_hvector_c': ('smap_type_vector(F, 1, 1, {count}, {blocklength}, {stride}, {oldtype}, {newtype})', []),
    'MPI_Type_create_indexed_block': ('smap_type_blocks(F, &(struct blocks_args){{.combiner = MPI_COMBINER_INDEXED_BLOCK, .count = {count}, .bl_all = {blocklength}, .disp_i = {array_of_displacements}, .oldtype = oldtype}}, {newtype})', ['if (blocklength < 0) return smap_type_bad_blocklength(F, 0, blocklength);']),
    'MPI_Type_create_indexed_block_c': ('smap_type_blocks(F, &(struct blocks_args){{.combiner = MPI_COMBINER_INDEXED_BLOCK, .large = 1, .count = {count}, .bl_all = {blocklength}, .disp_c = {array_of_displacements}, .oldtype = oldtype}}, {newtype})', ['if (blocklength < 0) return smap_type_bad_blocklength(F, 0, blocklength);']),
    'MPI_Type_create_resized': ('smap_type_resized(F, 0, {oldtype}, {lb}, {extent}, {newtype})', []),
    'MPI_Type_create_resized_c': ('smap_type_resized(F, 1, {oldtype}, {lb}, {extent}, {newtype})', []),
    'MPI_Type_create_struct': ('smap_type_blocks(F, &(struct blocks_args){{.combiner = MPI_COMBINER_STRUCT, .bytes = 1, .per_block_bl = 1, .is_struct = 1, .count = {count}, .bl_i = {array_of_blocklengths}, .disp_a = {array_of_displacements}, .types = array_of_types}}, {newtype})', []),
    'MPI_Type_create_struct_c': ('smap_type_blocks(F, &(struct blocks_args){{.combiner = MPI_COMBINER_STRUCT, .large = 1, .bytes = 1, .per_block_bl = 1, .is_struct = 1, .count = {count}, .bl_c = {array_of_blocklengths}, .disp_c = {array_of_displacements}, .types = array_of_types}}, {newtype})', []),
    'MPI_Type_create_subarray': ('smap_type_subarray(F, 0, {ndims}, {array_of_sizes}, {array_of_subsizes}, {array_of_starts}, NULL, NULL, NULL, {order}, {oldtype}, {newtype})', []),
    'MPI_Type_create_subarray_c': ('smap_type_subarray(F, 1, {ndims}, NULL, NULL, NULL, {array_of_sizes}, {array_of_subsizes}, {array_of_starts}, {order}, {oldtype}, {newtype})', []),
    'MPI_Type_indexed': ('smap_type_blocks(F, &(struct blocks_args){{.combiner = MPI_COMBINER_INDEXED, .per_block_bl = 1, .count = {count}, .bl_i = {array_of_blocklengths}, .disp_i = {array_of_displacements}, .oldtype = oldtype}}, {newtype})', []),
    'MPI_Type_indexed_c': ('smap_type_blocks(F, &(struct blocks_args){{.combiner = MPI_COMBINER_INDEXED, .large = 1, .per_block_bl = 1, .count = {count}, .bl_c = {array_of_blocklengths}, .disp_c = {array_of_displacements}, .oldtype = oldtype}}, {newtype})', []),
    'MPI_Type_vector': ('smap_type_vector(F, 0, 0, {count}, {blocklength}, {stride}, {oldtype}, {newtype})', []),
    'MPI_Type_vector_c': ('smap_type_vector(F, 1, 0, {count}, {blocklength}, {stride}, {oldtype}, {newtype})', []),
}


def datatype_rows():
    """Datatype entry points other than the constructors (datatype_create.c):
    dup, commit, free, queries, decoding, names, Fortran size matching,
    addresses."""
    rows = {
        "MPI_Type_dup": Row("smap_type_dup({oldtype_h}, {oldtype}, {newtype})"),
        "MPI_Type_commit": Row("smap_dtype_commit_checked({datatype_o})"),
        "MPI_Type_free": Row("smap_type_free({datatype}, {datatype_o})"),
        "MPI_Type_size": Row("smap_dtype_size_int({datatype}, {size})", ret="void"),
        "MPI_Type_get_extent": Row("smap_dtype_extent_aint({datatype}, 0, {lb}, {extent})",
                                   ret="void"),
        "MPI_Type_get_true_extent": Row(
            "smap_dtype_extent_aint({datatype}, 1, {true_lb}, {true_extent})", ret="void"),
        "MPI_Type_get_envelope": Row(
            "smap_dtype_envelope_int({datatype}, {num_integers}, {num_addresses}, "
            "{num_datatypes}, {combiner})"),
        "MPI_Type_get_envelope_c": Row(
            "smap_dtype_envelope({datatype}, {num_integers}, {num_addresses}, "
            "{num_large_counts}, {num_datatypes}, {combiner})"),
        # the arrays are checked against what the type needs, not the max_*
        "MPI_Type_get_contents": Row(
            "smap_dtype_contents_int({datatype}, {max_integers}, {max_addresses}, "
            "{max_datatypes}, {array_of_integers}, {array_of_addresses}, {array_of_datatypes})",
            skip=["max_integers", "max_addresses", "max_datatypes", "array_of_integers",
                  "array_of_addresses", "array_of_datatypes"]),
        "MPI_Type_get_contents_c": Row(
            "smap_dtype_contents({datatype}, {max_integers}, {max_addresses}, "
            "{max_large_counts}, {max_datatypes}, {array_of_integers}, {array_of_addresses}, "
            "{array_of_large_counts}, {array_of_datatypes})",
            skip=["max_integers", "max_addresses", "max_large_counts", "max_datatypes",
                  "array_of_integers", "array_of_addresses", "array_of_large_counts",
                  "array_of_datatypes"]),
        "MPI_Type_set_name": Row("smap_dtype_set_name({datatype}, {type_name})", ret="void"),
        # MPI_DATATYPE_NULL has a name: checked below
        "MPI_Type_get_name": Row("smap_dtype_get_name({datatype}, {type_name}, {resultlen})",
                                 skip=["datatype"]),
        "MPI_Type_match_size": Row("smap_dtype_match_size_into({typeclass}, {size}, {datatype})"),
        # local and valid at any time (no library state involved)
        "MPI_Get_address": Row("*{address} = (MPI_Aint){location}", ret="void", running=False),
        "MPI_Type_get_value_index": Row(
            "smap_dtype_value_index({value_type_h}, {index_type_h}, {pair_type})", ret="void"),
    }
    for kind, args in (("INTEGER", "MPI_UNDEFINED, {r}"), ("REAL", "{p}, {r}"),
                       ("COMPLEX", "{p}, {r}")):
        rows["MPI_Type_create_f90_%s" % kind.lower()] = Row(
            "smap_dtype_f90_create(MPI_COMBINER_F90_%s, %s, {newtype})" % (kind, args))
    for name, (call, extra) in TYPE_CREATE.items():
        rows[name] = Row(call, ret="raised", bare=True, running=False, extra=extra)
    for name in ("MPI_Type_size_c", "MPI_Type_size_x"):
        rows[name] = Row("*{size} = {datatype}->size", ret="void")
    for true_ext, names in ((0, ("MPI_Type_get_extent_c", "MPI_Type_get_extent_x")),
                            (1, ("MPI_Type_get_true_extent_c", "MPI_Type_get_true_extent_x"))):
        for name in names:
            rows[name] = Row("smap_dtype_extent_of({datatype}, %d, {1}, {2})" % true_ext,
                             ret="void")
    return rows


PACK_ROWS = {
    "MPI_Pack": Row("smap_dtype_pack_at_int({inbuf}, {incount}, {datatype}, {outbuf}, "
                    "{outsize}, {position})"),
    "MPI_Pack_c": Row("smap_dtype_pack_at({inbuf}, {incount}, {datatype}, {outbuf}, "
                      "{outsize}, {position})"),
    "MPI_Unpack": Row("smap_dtype_unpack_at_int({inbuf}, {insize}, {position}, {outbuf}, "
                      "{outcount}, {datatype})"),
    "MPI_Unpack_c": Row("smap_dtype_unpack_at({inbuf}, {insize}, {position}, {outbuf}, "
                        "{outcount}, {datatype})"),
    "MPI_Pack_size": Row("smap_dtype_pack_size_int({incount}, {datatype}, {size})"),
    "MPI_Pack_size_c": Row("smap_dtype_pack_size_of({incount}, {datatype}, {size})"),
    "MPI_Pack_external": Row("smap_dtype_pack_ext_aint({datarep}, {inbuf}, {incount}, "
                             "{datatype}, {outbuf}, {outsize}, {position})"),
    "MPI_Pack_external_c": Row("smap_dtype_pack_ext({datarep}, {inbuf}, {incount}, "
                               "{datatype}, {outbuf}, {outsize}, {position})"),
    "MPI_Unpack_external": Row("smap_dtype_unpack_ext_aint({datarep}, {inbuf}, {insize}, "
                               "{position}, {outbuf}, {outcount}, {datatype})"),
    "MPI_Unpack_external_c": Row("smap_dtype_unpack_ext({datarep}, {inbuf}, {insize}, "
                                 "{position}, {outbuf}, {outcount}, {datatype})"),
    "MPI_Pack_external_size": Row("smap_dtype_ext_size_aint({datarep}, {incount}, "
                                  "{datatype}, {size})"),
    "MPI_Pack_external_size_c": Row("smap_dtype_ext_size({datarep}, {incount}, "
                                    "{datatype}, {size})"),
}

COMM_ROWS = {
    # construction (src/comm): raised there on the parent's handler
    "MPI_Comm_dup": Row("smap_comm_dup({comm}, {newcomm}, F)", ret="raised"),
    # MPI_INFO_NULL is allowed: checked below
    "MPI_Comm_dup_with_info": Row("smap_comm_dup_with_info({comm}, {info}, {newcomm}, F)",
                                  ret="raised", skip=["info"]),
    "MPI_Comm_create": Row("smap_comm_create_sub({comm}, {group}, {newcomm}, F)",
                           ret="raised"),
    "MPI_Comm_free": Row("smap_comm_free({comm}, {comm_o}, F)", ret="raised"),
    # queries (src/mpi/comm_api.c)
    "MPI_Comm_compare": Row("smap_comm_compare({comm1}, {comm2}, {result})", ret="void"),
    "MPI_Comm_test_inter": Row("*{flag} = smap_comm_is_inter({comm})", ret="void"),
    "MPI_Comm_rank": Row("*{rank} = {comm}->rank", ret="void"),
    "MPI_Comm_size": Row("*{size} = {comm}->size", ret="void"),
    "MPI_Comm_set_name": Row("smap_comm_set_name({comm}, {comm_name})", ret="void"),
    # MPI_COMM_NULL has a name: checked below
    "MPI_Comm_get_name": Row("smap_comm_get_name({comm}, {comm_name}, {resultlen})",
                             skip=["comm"]),
    "MPI_Comm_split": Row("smap_comm_split_color({comm}, {color}, {key}, {newcomm}, F)",
                          ret="raised"),
    "MPI_Comm_split_type": Row(
        "smap_comm_split_type({comm}, {split_type}, {key}, {info}, {newcomm}, F)",
        ret="raised", null_ok=["info"]),
    "MPI_Comm_create_group": Row(
        "smap_comm_create_group({comm}, {group}, {tag}, {newcomm}, F)", ret="raised"),
    "MPI_Comm_idup": Row("smap_comm_idup({comm}, MPI_INFO_NULL, 0, {newcomm}, {request}, F)",
                         ret="raised"),
    "MPI_Comm_idup_with_info": Row(
        "smap_comm_idup({comm}, {info}, 1, {newcomm}, {request}, F)", ret="raised",
        null_ok=["info"]),
    # peer_comm matters at the leader only: checked there
    "MPI_Intercomm_create": Row(
        "smap_inter_create_checked({local_comm}, {local_leader}, {peer_comm_h}, "
        "{remote_leader}, {tag}, {newintercomm}, F)", ret="raised", skip=["peer_comm"]),
    # the Sessions constructors: errors on the handler given, every check
    # there (src/comm/comm_from_group.c)
    "MPI_Comm_create_from_group": Row(
        "smap_comm_from_group({group}, {stringtag}, {info}, {errhandler}, {newcomm}, F)",
        ret="raised", bare=True),
    "MPI_Intercomm_create_from_groups": Row(
        "smap_inter_from_groups({local_group}, {local_leader}, {remote_group}, "
        "{remote_leader}, {stringtag}, {info}, {errhandler}, {newintercomm}, F)",
        ret="raised", bare=True),
    "MPI_Intercomm_merge": Row("smap_inter_merge({intercomm}, {high}, {newintracomm}, F)",
                               ret="raised", inter="intercomm"),
    "MPI_Comm_remote_size": Row("*{size} = {comm}->remote_group->size", ret="void",
                                inter="comm"),
    "MPI_Comm_remote_group": Row("smap_comm_remote_group({comm}, {group})", ret="void",
                                 inter="comm"),
}

# The collectives: one template per operation over its blocking form's
# parameters; {REQ} is NULL (blocking) or `request` (the MPI_I<op> and
# MPI_<op>_init forms, which take the same arguments plus info/request),
# {CV} the int or MPI_Count array form (CV_INT / CV_BIG).  The argument
# checks are src/coll/entry's (move.c, reduce.c, inter.c: root, buffers,
# counts, types, op, MPI_IN_PLACE, intercommunicators), shared with the
# neighbourhood collectives.
COLL_OPS = {
    "Barrier": "coll_barrier(F, {comm}, {REQ})",
    "Bcast": "coll_bcast(F, {buffer}, {count}, {datatype}, {root}, {comm}, {REQ})",
    "Gather": "coll_gather(F, {sendbuf}, {sendcount}, {sendtype}, {recvbuf}, {recvcount}, "
              "CV_INT(NULL), CV_INT(NULL), {recvtype}, {root}, {comm}, 0, {REQ})",
    "Gatherv": "coll_gather(F, {sendbuf}, {sendcount}, {sendtype}, {recvbuf}, 0, "
               "{CV}({recvcounts}), {CV}({displs}), {recvtype}, {root}, {comm}, 1, {REQ})",
    "Scatter": "coll_scatter(F, {sendbuf}, {sendcount}, CV_INT(NULL), CV_INT(NULL), {sendtype}, "
               "{recvbuf}, {recvcount}, {recvtype}, {root}, {comm}, 0, {REQ})",
    "Scatterv": "coll_scatter(F, {sendbuf}, 0, {CV}({sendcounts}), {CV}({displs}), {sendtype}, "
                "{recvbuf}, {recvcount}, {recvtype}, {root}, {comm}, 1, {REQ})",
    "Allgather": "coll_allgather(F, {sendbuf}, {sendcount}, {sendtype}, {recvbuf}, {recvcount}, "
                 "CV_INT(NULL), CV_INT(NULL), {recvtype}, {comm}, 0, {REQ})",
    "Allgatherv": "coll_allgather(F, {sendbuf}, {sendcount}, {sendtype}, {recvbuf}, 0, "
                  "{CV}({recvcounts}), {CV}({displs}), {recvtype}, {comm}, 1, {REQ})",
    "Alltoall": "coll_alltoall(F, &(struct smap_a2a){{ .sbuf = {sendbuf}, .scount = {sendcount}, "
                ".rbuf = {recvbuf}, .rcount = {recvcount} }}, {sendtype}, {recvtype}, {comm}, 0, "
                "{REQ})",
    "Alltoallv": "coll_alltoall(F, &(struct smap_a2a){{ .sbuf = {sendbuf}, "
                 ".scounts = {CV}({sendcounts}), .sdispls = {CV}({sdispls}), .rbuf = {recvbuf}, "
                 ".rcounts = {CV}({recvcounts}), .rdispls = {CV}({rdispls}) }}, {sendtype}, "
                 "{recvtype}, {comm}, 1, {REQ})",
    "Alltoallw": "coll_alltoall(F, &(struct smap_a2a){{ .sbuf = {sendbuf}, "
                 ".scounts = {CV}({sendcounts}), .sdispls = {CV}({sdispls}), .stypes = {sendtypes}, "
                 ".rbuf = {recvbuf}, .rcounts = {CV}({recvcounts}), .rdispls = {CV}({rdispls}), "
                 ".rtypes = {recvtypes} }}, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, {comm}, 2, {REQ})",
    "Reduce": "coll_reduce(F, {sendbuf}, {recvbuf}, {count}, {datatype}, {op}, {root}, {comm}, "
              "{REQ})",
    "Allreduce": "coll_allred(F, K_ALLREDUCE, {sendbuf}, {recvbuf}, {count}, {datatype}, {op}, "
                 "{comm}, {REQ})",
    "Scan": "coll_allred(F, K_SCAN, {sendbuf}, {recvbuf}, {count}, {datatype}, {op}, {comm}, "
            "{REQ})",
    "Exscan": "coll_allred(F, K_EXSCAN, {sendbuf}, {recvbuf}, {count}, {datatype}, {op}, "
              "{comm}, {REQ})",
    "Reduce_scatter": "coll_redscat(F, {sendbuf}, {recvbuf}, {CV}({recvcounts}), 0, "
                      "{datatype}, {op}, {comm}, {REQ})",
    "Reduce_scatter_block": "coll_redscat(F, {sendbuf}, {recvbuf}, CV_INT(NULL), {recvcount}, "
                            "{datatype}, {op}, {comm}, {REQ})",
}


# The neighbourhood collectives (src/coll/nbc/neighbor.c): {ARGS} the
# struct nbr of the binding's parameters.
NBR_OPS = {
    "allgather": ("NB_ALLGATHER", "NB_ALLGATHER_ARGS({sendbuf}, {sendcount}, {sendtype}, "
                  "{recvbuf}, {recvcount}, {recvtype})"),
    "allgatherv": ("NB_ALLGATHERV", "NB_ALLGATHERV_ARGS({sendbuf}, {sendcount}, {sendtype}, "
                   "{recvbuf}, {recvcounts}, {displs}, {recvtype}, {CV})"),
    "alltoall": ("NB_ALLTOALL", "NB_ALLGATHER_ARGS({sendbuf}, {sendcount}, {sendtype}, "
                 "{recvbuf}, {recvcount}, {recvtype})"),
    "alltoallv": ("NB_ALLTOALLV", "NB_ALLTOALLV_ARGS({sendbuf}, {sendcounts}, {sdispls}, "
                  "{sendtype}, {recvbuf}, {recvcounts}, {rdispls}, {recvtype}, {CV})"),
    "alltoallw": ("NB_ALLTOALLW", "NB_ALLTOALLW_ARGS({sendbuf}, {sendcounts}, {sdispls}, "
                  "{sendtypes}, {recvbuf}, {recvcounts}, {rdispls}, {recvtypes}, {CV})"),
}


def neighbor_rows(names):
    rows = {}
    for op, (kind, args) in NBR_OPS.items():
        for suffix, cv in (("", "CV_INT"), ("_c", "CV_BIG")):
            a = "&(struct nbr)%s" % args.replace("{CV}", cv)
            forms = (("MPI_Neighbor_%s%s" % (op, suffix),
                      "coll_neighbor(F, {comm}, %s, %s, NULL, 0)" % (a, kind)),
                     ("MPI_Ineighbor_%s%s" % (op, suffix),
                      "coll_neighbor(F, {comm}, %s, %s, {request}, 1)" % (a, kind)),
                     ("MPI_Neighbor_%s_init%s" % (op, suffix),
                      "coll_neighbor_init(F, {comm}, %s, %s, {info}, {request})" % (a, kind)))
            for name, call in forms:
                if name in names:
                    rows[name] = Row(call, ret="raised", bare=True, running=False)
    return rows


def coll_rows(names):
    """The blocking, non-blocking and persistent rows of every operation
    (and the large-count twins the standard has)."""
    rows = {}
    for op, tmpl in COLL_OPS.items():
        for suffix, cv in (("", "CV_INT"), ("_c", "CV_BIG")):
            # a request pointer first: a NULL one would ask for a blocking call
            req = ['SMAP_CHECK_ARG(F, comm, request, "request");']
            extra = (['SMAP_CHECK_ARG(F, comm, recvcounts, "recvcounts");']
                     if op == "Reduce_scatter" else [])
            call = tmpl.replace("{CV}", cv)
            forms = (("MPI_%s%s" % (op, suffix), call.replace("{REQ}", "NULL"), extra),
                     ("MPI_I%s%s" % (op.lower(), suffix),
                      call.replace("{REQ}", "{request}"), req + extra),
                     ("MPI_%s_init%s" % (op, suffix),
                      "COLL_PERSIST({request}, %s)" % call.replace("{REQ}", "{request}"),
                      req + ["*request = MPI_REQUEST_NULL;",
                             'SMAP_CHECK_INFO_OR_NULL(F, comm, info, "info");'] + extra))
            for k, (name, c, x) in enumerate(forms):
                if name in names:   # the blocking form: coll/entry checks running first
                    rows[name] = Row(c, ret="raised", bare=True, extra=x,
                                     running=False if k == 0 else None)
    return rows


REQUEST_ROWS = {
    # off the completion fast path (src/mpi/request_api.c: the handles are
    # checked there, errors raised on the request's communicator); the
    # arrays' count is MPI_ERR_COUNT there, not the kinds' MPI_ERR_ARG
    "MPI_Start": Row("smap_req_start_handle({request}, F)", ret="raised"),
    "MPI_Startall": Row("smap_req_startall({count}, {array_of_requests}, F)", ret="raised",
                        bare=True),
    "MPI_Request_free": Row("smap_req_free_handle({request}, F)", ret="raised"),
    "MPI_Cancel": Row("smap_req_cancel_handle({request}, F)", ret="raised", bare=True),
    "MPI_Request_get_status": Row("smap_req_get_status({request}, {flag}, {status}, F)",
                                  ret="raised", bare=True),
    "MPI_Request_get_status_all": Row(
        "smap_req_get_status_all({count}, {array_of_requests}, {flag}, {array_of_statuses}, F)",
        ret="raised", bare=True),
    "MPI_Request_get_status_any": Row(
        "smap_req_get_status_any({count}, {array_of_requests}, {index}, {flag}, {status}, F)",
        ret="raised", bare=True),
    "MPI_Request_get_status_some": Row(
        "smap_req_get_status_some({incount}, {array_of_requests}, {outcount}, "
        "{array_of_indices}, {array_of_statuses}, F)", ret="raised", bare=True),
    "MPI_Grequest_start": Row("smap_greq_start_checked({query_fn}, {free_fn}, {cancel_fn}, "
                              "{extra_state}, {request})"),
    "MPI_Grequest_complete": Row("smap_greq_complete_checked({request})"),
}
# Windows (MPI 5.0 section 12.2): src/rma/win_api.c, win.c, win_props.c check
# what the kinds do not (sizes, displacement units, flavors, ranks) and
# return a class; creation raises on the communicator, the rest on the
# window's own handler.
def win_rows():
    rows = {}
    for name, flavor, base, baseptr in (
            ("MPI_Win_create", "CREATE", "{base}", "NULL"),
            ("MPI_Win_allocate", "ALLOCATE", "NULL", "{baseptr}"),
            ("MPI_Win_allocate_shared", "SHARED", "NULL", "{baseptr}")):
        for suffix in ("", "_c"):
            # info may be MPI_INFO_NULL, *win is MPI_WIN_NULL on any error
            # after the pointer's check: both below
            rows[name + suffix] = Row(
                "smap_win_create_checked(MPI_WIN_FLAVOR_%s, %s, {size}, {disp_unit}, "
                "{info}, {comm}, %s, {win})" % (flavor, base, baseptr), skip=["info"])
    rows["MPI_Win_create_dynamic"] = Row(
        "smap_win_create_checked(MPI_WIN_FLAVOR_DYNAMIC, NULL, 0, 1, {info}, {comm}, NULL, "
        "{win})", skip=["info"])
    rows.update({
        "MPI_Win_shared_query": Row(
            "smap_win_shared_query_int({win}, {rank}, {size}, {disp_unit}, {baseptr})"),
        "MPI_Win_shared_query_c": Row(
            "smap_win_shared_query({win}, {rank}, {size}, {disp_unit}, {baseptr})"),
        "MPI_Win_attach": Row("smap_win_attach({win}, {base}, {size})"),
        "MPI_Win_detach": Row("smap_win_detach({win}, {base})"),
        "MPI_Win_free": Row("smap_win_free_checked({win_o}, {win})"),
        # attributes: the predefined ones here, the rest mpi/attr.c's, raised there
        "MPI_Win_get_attr": Row(
            "smap_win_get_attr({win}, {win_keyval}, {attribute_val}, {flag}, F)", ret="raised"),
        "MPI_Win_set_attr": Row("smap_win_set_attr({win}, {win_keyval}, {attribute_val}, F)",
                                ret="raised"),
        "MPI_Win_delete_attr": Row("smap_win_delete_attr({win}, {win_keyval}, F)",
                                   ret="raised"),
        "MPI_Win_set_info": Row("smap_win_set_hints({win}, {info})", ret="void"),
        "MPI_Win_get_info": Row("smap_win_get_info_into({win}, {info_used})"),
        "MPI_Win_set_name": Row("smap_win_set_name({win}, {win_name})", ret="void"),
        # MPI_WIN_NULL has a name: every check below
        "MPI_Win_get_name": Row("smap_win_get_name({win}, {win_name}, {resultlen}, F)",
                                ret="raised", bare=True),
        "MPI_Win_get_group": Row("smap_win_group_of({win}, {group})", ret="void"),
        "MPI_Win_create_errhandler": Row(
            "smap_errhandler_create_into((MPI_Comm_errhandler_function *)(void *)"
            "{win_errhandler_fn}, {errhandler})", running=False,
            extra=['SMAP_CHECK_NONNULL(F, MPI_COMM_NULL, win_errhandler_fn, '
                   '"win_errhandler_fn");']),
        "MPI_Win_set_errhandler": Row("smap_win_set_errhandler({win}, {errhandler})"),
        "MPI_Win_get_errhandler": Row("smap_win_get_errhandler({win}, {errhandler})",
                                      ret="void"),
        "MPI_Win_call_errhandler": Row("smap_win_invoke({win}, {errorcode})", ret="void"),
    })
    return rows


# Synchronisation (MPI 5.0 section 12.5): src/rma/sync.c checks the assert
# bits, lock types and ranks (MPI_PROC_NULL: nothing to do).
WIN_SYNC_ROWS = {
    "MPI_Win_fence": Row("smap_win_fence({win}, {assert})"),
    "MPI_Win_post": Row("smap_win_post({win}, {group}, {assert})"),
    "MPI_Win_start": Row("smap_win_start({win}, {group}, {assert})"),
    "MPI_Win_complete": Row("smap_win_complete({win})"),
    "MPI_Win_wait": Row("smap_win_wait({win})"),
    "MPI_Win_test": Row("smap_win_test({win}, {flag})"),
    "MPI_Win_lock": Row("smap_win_lock({win}, {lock_type}, {rank}, {assert})"),
    "MPI_Win_unlock": Row("smap_win_unlock({win}, {rank})"),
    "MPI_Win_lock_all": Row("smap_win_lock_all({win}, {assert})"),
    "MPI_Win_unlock_all": Row("smap_win_unlock_all({win})"),
    "MPI_Win_flush": Row("smap_win_flush({win}, {rank}, 0)"),
    "MPI_Win_flush_local": Row("smap_win_flush({win}, {rank}, 1)"),
    "MPI_Win_flush_all": Row("smap_win_flush({win}, SMAP_WIN_ALL, 0)"),
    "MPI_Win_flush_local_all": Row("smap_win_flush({win}, SMAP_WIN_ALL, 1)"),
    "MPI_Win_sync": Row("smap_win_sync({win})"),
}


# Sessions (MPI 5.0 chapter 11): src/mpi/session_api.c; MPI_Session_init
# starts the communicator layer (src/comm/start.c).  They work without
# MPI_Init.
SESSION_ROWS = {
    # the error handler given is the target: every check there
    "MPI_Session_init": Row("smap_comm_session_init({info}, {errhandler}, {session}, F)",
                            ret="raised", bare=True),
    # raised there, on the handler the session had
    "MPI_Session_finalize": Row("smap_session_finalize_checked({session_o}, {session}, F)",
                                ret="raised"),
    "MPI_Session_get_num_psets": Row("*{npset_names} = smap_pset_count()", ret="void",
                                     null_ok=["info"]),
    # pset_name may be NULL when *pset_len is 0: checked below
    "MPI_Session_get_nth_pset": Row("smap_session_nth_pset({n}, {pset_len}, {pset_name})",
                                    null_ok=["info"], skip=["pset_name"]),
    "MPI_Session_get_pset_info": Row("smap_session_pset_info({session}, {pset_name}, {info})"),
    "MPI_Session_get_info": Row("smap_session_info_into({session}, {info_used})"),
    "MPI_Group_from_session_pset": Row(
        "smap_session_pset_group_into({session}, {pset_name}, {newgroup})"),
    "MPI_Session_create_errhandler": Row(
        "smap_errhandler_create_into((MPI_Comm_errhandler_function *)(void (*)(void))"
        "{session_errhandler_fn}, {errhandler})",
        extra=['SMAP_CHECK_NONNULL(F, MPI_COMM_NULL, session_errhandler_fn, '
               '"session_errhandler_fn");']),
    "MPI_Session_get_errhandler": Row("smap_session_errhandler_of({session}, {errhandler})",
                                      ret="void"),
    "MPI_Session_set_errhandler": Row("smap_session_set_errhandler({session}, {errhandler})"),
    "MPI_Session_call_errhandler": Row("smap_session_invoke({session}, {errorcode})",
                                       ret="void"),
}


# The one-sided operations other than the measured fast paths (MPI_Put,
# MPI_Get, MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op: hand-written
# in rma_ops.c): src/rma/op_args.c checks the arguments whose rules depend
# on the operation (MPI_NO_OP leaves the origin unused, MPI_BOTTOM buffers,
# accumulates' types); here the window and the request pointer.
def rma_desc(kind, origin, result, target, op="MPI_OP_NULL", caddr="NULL"):
    return ("&(struct smap_rma_desc){{ %s, %s, %s, %s, %s, %s }}"
            % (kind, origin, result, caddr, target, op))


ORIGIN = "{origin_addr}, {origin_count}, {origin_datatype}"
RESULT = "{result_addr}, {result_count}, {result_datatype}"
NO_BUF = "NULL, 0, MPI_DATATYPE_NULL"
TARGET = "{target_rank}, {target_disp}, {target_count}, {target_datatype}"


def rma_op_rows(names):
    rows = {}
    for op, desc in (("Put", rma_desc("SMAP_RMA_PUT", ORIGIN, NO_BUF, TARGET)),
                     ("Get", rma_desc("SMAP_RMA_GET", NO_BUF, ORIGIN, TARGET)),
                     ("Accumulate", rma_desc("SMAP_RMA_ACC", ORIGIN, NO_BUF, TARGET, "{op}")),
                     ("Get_accumulate", rma_desc("SMAP_RMA_GACC", ORIGIN, RESULT, TARGET,
                                                 "{op}"))):
        for suffix in ("", "_c"):
            blocking, rq = "MPI_%s%s" % (op, suffix), "MPI_R%s%s" % (op.lower(), suffix)
            if suffix and blocking in names:
                rows[blocking] = Row("smap_rma_op_checked({win}, %s, NULL)" % desc,
                                     only=["win"])
            if rq in names:
                rows[rq] = Row("smap_rma_op_checked({win}, %s, {request})" % desc,
                               only=["win", "request"])
    one = "{datatype}"
    rows["MPI_Compare_and_swap"] = Row(
        "smap_rma_op_checked({win}, %s, NULL)"
        % rma_desc("SMAP_RMA_CAS", "{origin_addr}, 1, " + one, "{result_addr}, 1, " + one,
                   "{target_rank}, {target_disp}, 1, " + one, caddr="{compare_addr}"),
        only=["win"])
    return rows


# Dynamic processes (src/spawn: entry.c checks what matters at the root
# only and raises there, as spawn.h's functions do).  The info arguments
# are ignored (no keys are honoured yet): not checked.
DYNAMIC_ROWS = {
    "MPI_Comm_get_parent": Row("*{parent} = smap_spawn_parent()", ret="void"),
    "MPI_Comm_disconnect": Row("smap_spawn_comm_disconnect({comm}, {comm_o}, F)",
                               ret="raised"),
    "MPI_Open_port": Row("smap_port_open({port_name}, F)", ret="raised", skip=["info"],
                         target="MPI_COMM_WORLD"),
    "MPI_Close_port": Row("smap_port_close({port_name}, F)", ret="raised",
                          target="MPI_COMM_WORLD"),
    # port_name matters at the root only: checked there
    "MPI_Comm_accept": Row("smap_spawn_accept_checked({port_name}, {root}, {comm}, {newcomm}, F)",
                           ret="raised", skip=["info", "port_name"]),
    "MPI_Comm_connect": Row(
        "smap_spawn_connect_checked({port_name}, {root}, {comm}, {newcomm}, F)", ret="raised",
        skip=["info", "port_name"]),
    "MPI_Comm_join": Row("smap_spawn_join({fd}, {intercomm}, F)", ret="raised",
                         target="MPI_COMM_SELF",
                         extra=['if (fd < 0)',
                                '    return smap_err_raise(MPI_COMM_SELF, MPI_ERR_ARG, F, '
                                '"fd %d is negative", fd);']),
    # the commands, their arguments and counts matter at the root only
    "MPI_Comm_spawn": Row(
        "smap_spawn_one({command}, {argv}, {maxprocs}, {info_h}, {root}, {comm}, {intercomm}, "
        "{array_of_errcodes}, F)", ret="raised", only=["comm", "intercomm"]),
    "MPI_Comm_spawn_multiple": Row(
        "smap_spawn_multiple_checked({count}, {array_of_commands}, {array_of_argv}, "
        "{array_of_maxprocs}, {array_of_info}, {root}, {comm}, {intercomm}, "
        "{array_of_errcodes}, F)", ret="raised", only=["comm", "intercomm"]),
    "MPI_Publish_name": Row("smap_name_publish({service_name}, {port_name}, F)", ret="raised",
                            skip=["info"], target="MPI_COMM_WORLD"),
    # port_name is unused (the name alone is unpublished)
    "MPI_Unpublish_name": Row("smap_name_unpublish({service_name}, {port_name}, F)",
                              ret="raised", skip=["info", "port_name"],
                              target="MPI_COMM_WORLD"),
    "MPI_Lookup_name": Row("smap_name_lookup({service_name}, {port_name}, F)", ret="raised",
                           skip=["info"], target="MPI_COMM_WORLD"),
}


# Buffers of buffered sends (src/mpi/bsend_api.c checks sizes and buffers;
# the pools are src/mpi/bsend.c's): the process's, a communicator's
# (errors on it), a session's (errors on it; no MPI_Init needed).
def buffer_rows():
    rows = {}
    for owner, c, s, running in (("Buffer", "NULL", "NULL", None),
                                 ("Comm", "{comm}", "NULL", None),
                                 ("Session", "NULL", "{session}", False)):
        for suffix in ("", "_c"):
            args = "%s, %s" % (c, s)
            rows["MPI_%s_attach_buffer%s" % (owner, suffix) if owner != "Buffer"
                 else "MPI_Buffer_attach" + suffix] = Row(
                "smap_buffer_attach_to(%s, {buffer}, {size})" % args, running=running)
            detach = "smap_buffer_detach_from" if suffix else "smap_buffer_detach_int"
            rows["MPI_%s_detach_buffer%s" % (owner, suffix) if owner != "Buffer"
                 else "MPI_Buffer_detach" + suffix] = Row(
                "%s(%s, {buffer_addr}, {size})" % (detach, args), running=running)
        flush = ("smap_buffer_flush(NULL)", "smap_buffer_flush({comm})",
                 "smap_session_buffer_flush({session})")[("Buffer", "Comm", "Session").index(owner)]
        rows["MPI_Buffer_flush" if owner == "Buffer" else "MPI_%s_flush_buffer" % owner] = Row(
            flush, ret="void", running=running)
        rows["MPI_Buffer_iflush" if owner == "Buffer" else "MPI_%s_iflush_buffer" % owner] = Row(
            "smap_buffer_iflush_of(%s, {request})" % args, running=running)
    return rows


# Persistent and partitioned point-to-point requests (src/mpi/persist.c;
# the arguments' rules, shared with nothing hot, in src/mpi/p2p_args.c):
# here the communicator and the request pointer.
def persist_rows():
    rows = {}
    for op, mode, recv, peer in (("Send", "SMAP_P2P_STANDARD", 0, "dest"),
                                 ("Ssend", "SMAP_P2P_SYNC", 0, "dest"),
                                 ("Rsend", "SMAP_P2P_READY", 0, "dest"),
                                 ("Bsend", "SMAP_REQ_BUFFERED", 0, "dest"),
                                 ("Recv", "0", 1, "source")):
        for suffix in ("", "_c"):
            rows["MPI_%s_init%s" % (op, suffix)] = Row(
                "smap_persist_init({comm}, {buf}, {count}, {datatype_h}, {%s}, {tag}, %s, %d, "
                "{request})" % (peer, mode, recv), only=["comm", "request"])
    for op, send, peer in (("Psend", 1, "dest"), ("Precv", 0, "source")):
        rows["MPI_%s_init" % op] = Row(
            "smap_part_init_checked({comm}, {buf}, {partitions}, {count}, {datatype_h}, {%s}, "
            "{tag}, {info_h}, %d, {request})" % (peer, send), only=["comm", "request"])
    # the request is the target: src/mpi/part_api.c checks it and raises
    rows["MPI_Pready"] = Row("smap_part_pready_range({request}, {partition}, {partition}, F)",
                             ret="raised", bare=True)
    rows["MPI_Pready_range"] = Row(
        "smap_part_pready_range({request}, {partition_low}, {partition_high}, F)",
        ret="raised", bare=True)
    rows["MPI_Pready_list"] = Row(
        "smap_part_pready_list({request}, {length}, {array_of_partitions}, F)", ret="raised",
        bare=True)
    rows["MPI_Parrived"] = Row("smap_part_parrived({request}, {partition}, {flag}, F)",
                               ret="raised", bare=True)
    return rows


FAMILIES = [
    Family("handles",
           "Handle conversion (MPI_<Kind>_c2f / _f2c / _toint / _fromint, MPI 5.0 "
           "sections 19.3.4 and 20.3.5) and the status conversions.  These have no "
           "error code to return (an invalid handle converts to its kind's null "
           "handle, src/mpi/handles.c) and work before MPI_Init.",
           ["mpi/handles.h", "mpi/status.h"], handle_rows(), running=False),
    Family("group",
           "Process groups (src/mpi/group.h, the operations in src/mpi/group_api.c).  "
           "Errors on groups are tied to no communicator: they go to "
           "MPI_COMM_SELF's handler.",
           ["mpi/group.h"], GROUP_ROWS),
    Family("info",
           "Info objects (src/mpi/info.h, the operations in src/mpi/info_api.c) and "
           "communicator hints.  The MPI_Info_* functions work before MPI_Init too "
           "(MPI-4 allows it); their errors go to MPI_COMM_SELF's handler.",
           ["mpi/info.h"], INFO_ROWS, running=False),
    Family("errors",
           "Error classes, codes and strings (src/mpi/errors.c) and communicators' "
           "error handlers (src/mpi/errhandler.c); the operations in "
           "src/mpi/error_api.c.  Errors here belong to no communicator but the "
           "one given: MPI_COMM_SELF's handler.",
           ["mpi/errhandler.h"], ERROR_ROWS),
    Family("status",
           "The MPI_Status functions: counts (MPI_Get_count, MPI_Get_elements, "
           "MPI_Status_set_elements, with their large-count twins; src/mpi/status_api.c), "
           "the cancelled flag, and MPI 5.0's field accessors (src/mpi/status.h).  "
           "Errors belong to no communicator (MPI_COMM_SELF's handler).",
           ["mpi/status.h"], status_rows()),
    Family("topo",
           "Process topologies (MPI 5.0 chapter 8): the constructors "
           "(src/comm/topo_create.c), the queries and the rules of a description "
           "(src/topo/query.c), MPI_Dims_create (src/topo/dims.c), MPI_Topo_test.",
           ["comm/comm_create.h", "mpi/comm.h", "topo/topo.h"], TOPO_ROWS),
    Family("environment",
           "Entry points that describe the environment: clocks (base/timer.h), "
           "names and versions (src/mpi/environment.c), address arithmetic.  They "
           "work before MPI_Init, except MPI_Get_processor_name.",
           ["base/timer.h", "mpi/runtime.h"], ENVIRONMENT_ROWS, running=False),
    Family("op",
           "Reduction ops (src/mpi/op.h, the operations in src/mpi/op_api.c) and "
           "MPI_Reduce_local.  Errors on ops are tied to no communicator: they go to "
           "MPI_COMM_SELF's handler.",
           ["mpi/op.h"], OP_ROWS),
    Family("attr",
           "Keyvals and cached attributes (src/mpi/attr.h): communicators, "
           "datatypes (predefined ones carry attributes too; MPI_Type_dup / "
           "MPI_Type_free run the callbacks), and the keyvals of windows.  Errors "
           "go to the communicator's handler, else MPI_COMM_SELF's.",
           ["dtype/dtype.h", "mpi/attr.h"], attr_rows()),
    Family("abi",
           "The MPI 5.0 ABI functions (MPI_Abi_get_info, the Fortran info and "
           "booleans; MPI_Abi_get_version is in environment.c) and "
           "MPI_Get_hw_resource_info (src/mpi/abi_api.c).  The ABI ones work before "
           "MPI_Init and after MPI_Finalize.",
           ["mpi/abi.h"], ABI_ROWS, running=False),
    Family("memory",
           "MPI_Alloc_mem and MPI_Free_mem (src/mpi/mem.c): malloc, which the exposed "
           "heap serves; the live blocks are recorded so that freeing anything else "
           "is an error rather than a crash in the heap.  Errors go to "
           "MPI_COMM_WORLD's handler.",
           ["mpi/mem.h"], MEMORY_ROWS, errcomm="MPI_COMM_WORLD"),
    Family("datatype",
           "Datatype entry points: the constructors (src/mpi/type_create.c, which "
           "checks their arguments), dup and free (src/mpi/type_api.c: they run the "
           "attributes' callbacks), commit, queries, decoding, names, Fortran size "
           "matching, addresses (src/dtype/query.c).  Errors go to MPI_COMM_SELF's "
           "handler.",
           ["dtype/dtype.h", "mpi/type_api.h"], datatype_rows()),
    Family("request",
           "Requests off the completion fast path: MPI_Start(all), MPI_Request_free, "
           "MPI_Cancel, the MPI_Request_get_status forms (src/mpi/request_api.c: errors on "
           "the request's communicator) and generalized requests (src/mpi/grequest.c: "
           "MPI_COMM_SELF's handler).  Waits and tests, the measured path, are the "
           "hand-written request.c.",
           ["mpi/request.h"], REQUEST_ROWS),
    Family("pack",
           "MPI_Pack / MPI_Unpack / MPI_Pack_size and the external32 variants, with "
           "their large-count twins, over the datatype engine (src/dtype/pack_api.c). "
           "Errors go to the communicator's handler (MPI_COMM_SELF's for external32).",
           ["dtype/engine.h"], PACK_ROWS),
    Family("comm",
           "Creating and freeing communicators and intercommunicators (src/comm: the "
           "members' agreement, the hints and attributes' callbacks, the checks of "
           "comm_entry.c; the Sessions constructors, comm_from_group.c) and the queries on "
           "them (src/mpi/comm_api.c).",
           ["comm/comm_create.h", "mpi/comm.h", "mpi/intercomm.h"], COMM_ROWS),
    Family("win",
           "Windows (MPI 5.0 section 12.2): creation in its four flavours, freeing, "
           "shared-memory queries, dynamic attach/detach (src/rma/win_api.c, win.c), "
           "attributes, info, names, the group, error handlers (src/rma/win_props.c).  "
           "Errors go to the window's handler; creation's to the communicator's, and "
           "those that leave no valid window to MPI_COMM_SELF's.",
           ["mpi/errhandler.h", "rma/rma.h"], win_rows(), targets=("MPI_Win", "MPI_Comm")),
    Family("win_sync",
           "One-sided synchronisation (MPI 5.0 section 12.5): fence, post/start/"
           "complete/wait/test, lock/unlock(_all), flushes, sync; the protocols and "
           "the checks of assert bits, lock types and ranks are src/rma/sync.c's.  "
           "Errors go to the window's handler.",
           ["rma/rma.h"], WIN_SYNC_ROWS, targets=("MPI_Win",)),
    Family("session",
           "Sessions (MPI 5.0 chapter 11): MPI_Session_init (src/comm/start.c) and "
           "finalize, process sets, MPI_Group_from_session_pset, the session's info "
           "and error handlers (src/mpi/session_api.c; the objects are "
           "src/mpi/session.c).  They work without MPI_Init.  Errors on a live "
           "session go to its handler; with none (MPI_ERR_SESSION), to "
           "MPI_COMM_SELF's.",
           ["comm/comm_create.h", "mpi/errhandler.h", "mpi/session.h"], SESSION_ROWS,
           running=False, targets=("MPI_Session",)),
    Family("dynamic",
           "Dynamic processes (DESIGN.md D17): spawn, the parent, ports, accept/connect, "
           "join, disconnect, names (src/spawn: entry.c for what matters at the root "
           "only and MPI_Comm_disconnect's order, spawn.h for the rest, which raise "
           "their own errors).  Errors go to the communicator's handler; for ports and "
           "names to MPI_COMM_WORLD's, for MPI_Comm_join to MPI_COMM_SELF's.",
           ["spawn/entry.h", "spawn/spawn.h"], DYNAMIC_ROWS),
    Family("buffer",
           "The buffers of buffered sends: MPI_Buffer_attach/detach/flush/iflush (the "
           "process's), their MPI_Comm_* and MPI_Session_* twins (a communicator's or a "
           "session's own buffer), with the large-count forms (src/mpi/bsend_api.c; the "
           "pools are src/mpi/bsend.c's).  Errors go to the communicator's or the "
           "session's handler; the process's to MPI_COMM_SELF's.  The session's work "
           "without MPI_Init.",
           ["mpi/request.h"], buffer_rows(), targets=("MPI_Comm", "MPI_Session")),
    Family("p2p_persist",
           "Persistent point-to-point requests (MPI_Send_init ... MPI_Recv_init, with "
           "their large-count forms) and partitioned ones (MPI_Psend_init, "
           "MPI_Precv_init, MPI_Pready*, MPI_Parrived): src/mpi/persist.c and "
           "part_api.c, the arguments' rules in src/mpi/p2p_args.c (the measured send "
           "and receive paths keep theirs inline, binding/p2p_common.h).  MPI_Start, "
           "waits and tests: request.c.  Errors go to the communicator's handler (the "
           "request's for MPI_Pready* and MPI_Parrived).",
           ["mpi/request.h", "p2p/p2p.h"], persist_rows()),
]


# ---------------------------------------------------------------------------
# Writing a stub
# ---------------------------------------------------------------------------

def length_of(p):
    """The name of the parameter that counts p's entries, or None."""
    length = p.raw["length"]
    if isinstance(length, list):
        length = length[0]
    if isinstance(length, str) and re.match(r"^[A-Za-z_]\w*$", length):
        return length
    return None


def is_handle_pointer(p):
    """An inout handle passed by pointer (MPI_Group_free's *group)."""
    return p.kind in HANDLE_CHECKS and p.raw["param_direction"] == "inout" \
        and p.pointer_level() == 1 and p.array_suffix() == ""


def is_handle_value(p):
    return p.kind in HANDLE_CHECKS and p.raw["param_direction"] == "in" \
        and p.pointer_level() == 0 and p.array_suffix() == ""


def checks_of(fn, row, errc, errp=None):
    """-> (declarations, check lines, {param: argument as passed})."""
    decls, lines, late, args = [], [], [], {}
    params = [p for p in fn.params if not p.is_varargs]
    names = {p.name for p in params}
    lengths = {}
    for p in params:
        n = length_of(p)
        if n in names and not row.nolen:
            lengths.setdefault(n, []).append(p)
    # the communicator errors are raised on is checked first: no error may
    # be raised on an invalid one
    params.sort(key=lambda p: p.name != (errp.name if errp else errc))
    for p in params:
        args[p.name] = p.name
        args[p.name + "_h"] = p.name   # the handle itself, even when checked
        if p.name in row.skip or row.bare or (row.only is not None and p.name not in row.only):
            continue
        direction = p.raw["param_direction"]
        if p.name in row.null_ok:
            lines.append('SMAP_CHECK_INFO_OR_NULL(F, %s, %s, "%s");' % (errc, p.name, p.name))
            continue
        if is_handle_value(p) or is_handle_pointer(p):
            macro, otype = HANDLE_CHECKS[p.kind]
            obj = p.name + "_o"
            decls.append("%s *%s;" % (otype, obj))
            h = p.name
            if is_handle_pointer(p) and errp is p:
                # the target itself: its pointer's error has no target yet
                lines.append('SMAP_CHECK_NONNULL(F, MPI_COMM_NULL, %s, "%s");'
                             % (p.name, p.name))
                lines.append("%s %s = *%s;" % (p.base_type(), errc, p.name))
                h = "*" + p.name
            elif is_handle_pointer(p):
                lines.append('SMAP_CHECK_NONNULL(F, %s, %s, "%s");' % (errc, p.name, p.name))
                h = "*" + p.name
            lines.append('%s(F, %s, %s, "%s", %s);' % (macro, errc, h, h, obj))
            if row.intra == p.name or (row.topo and row.topo[0] == p.name):
                lines.append('SMAP_CHECK_INTRA(F, %s, %s, "%s");' % (errc, obj, p.name))
            if row.topo and row.topo[0] == p.name:
                lines.append('SMAP_CHECK_TOPO(F, %s, %s, %s, "%s");'
                             % (errc, obj, row.topo[1], row.topo[2]))
            if row.inter == p.name:   # after the pointers (tests/mpi/null_outputs)
                late.append('SMAP_CHECK_INTER(F, %s, %s, "%s");' % (errc, obj, p.name))
            if is_handle_value(p):
                args[p.name] = obj
            args[p.name + "_o"] = obj
            continue
        if p.kind in STATUS_KINDS and p.pointer_level() == 1:
            lines.append('SMAP_CHECK_STATUS_ARG(F, %s, %s, "%s");' % (errc, p.name, p.name))
            continue
        if p.name in lengths and p.base_type() in ("int", "MPI_Count", "MPI_Aint") \
                and p.pointer_level() == 0:
            lines.append('SMAP_CHECK_NNI(F, %s, %s, "%s");' % (errc, p.name, p.name))
            for arr in lengths[p.name]:
                if arr.name not in row.skip and arr.kind != "STRING":
                    lines.append('SMAP_CHECK_ARRAY(F, %s, %s, %s, "%s", "%s");'
                                 % (errc, arr.name, p.name, arr.name, p.name))
            continue
        if p.kind in COUNT_KINDS and direction == "in" and p.pointer_level() == 0 \
                and p.array_suffix() == "":   # an array of counts: its rules are below
            lines.append('SMAP_CHECK_COUNT(F, %s, %s, "%s");' % (errc, p.name, p.name))
            continue
        if p.kind == "STRING" and (p.pointer_level() == 1 or p.array_suffix() == "[]"):
            lines.append('SMAP_CHECK_NONNULL(F, %s, %s, "%s");' % (errc, p.name, p.name))
            continue
        if direction in ("out", "inout") and p.pointer_level() == 1 \
                and p.array_suffix() == "" and p.kind not in UNCHECKED_OUT_KINDS:
            lines.append('SMAP_CHECK_NONNULL(F, %s, %s, "%s");' % (errc, p.name, p.name))
    lines.extend(late)
    for x in row.extra:
        lines.append(x)
    return decls, lines, args


def target_param(fn, family, row=None):
    """The parameter errors are raised on, or None: the first input handle
    of one of the family's target types, or an inout one passed by pointer
    (MPI_Win_free's *win: the handle is read into `win_t` once checked)."""
    if family is None or family.errcomm or (row is not None and row.target):
        return None
    for p in fn.params:
        if p.is_varargs or p.base_type() not in family.targets:
            continue
        if p.raw["param_direction"] == "in" and p.is_value_handle(p.base_type()):
            return p
        if is_handle_pointer(p):
            return p
    return None


def error_comm(fn, family, row=None):
    """The error target as a C expression."""
    if row is not None and row.target:
        return row.target
    if family and family.errcomm:
        return family.errcomm
    p = target_param(fn, family, row)
    if p is None:
        return "MPI_COMM_NULL"
    return p.name + "_t" if is_handle_pointer(p) else p.name


def render_call(row, fn, args, family=None):
    positional = [args[p.name] for p in fn.params if not p.is_varargs]
    fields = dict(args)
    fields["T"] = fn.return_type()
    fields["F"] = "F"
    fields["errc"] = error_comm(fn, family, row) if family else "MPI_COMM_NULL"
    return row.call.format(*positional, **fields)


def gen_stub(fn, family, row):
    out = []
    w = out.append
    w("")
    w(fn.prototype(fn.pname))
    w("{")
    if row.ret == "value":
        w("    return %s;" % render_call(row, fn, {p.name: p.name for p in fn.params}))
        w("}")
        return out
    errc = error_comm(fn, family, row)
    decls, lines, args = checks_of(fn, row, errc, target_param(fn, family, row))
    w('    static const char F[] = "%s";' % fn.name)
    for d in decls:
        w("    " + d)
    if family.running if row.running is None else row.running:
        w("    SMAP_CHECK_RUNNING(F);")
    for line in lines:
        w("    " + line)
    call = render_call(row, fn, args, family)
    for d in decls:   # a handle checked only for validity
        obj = d.rstrip(";").split("*")[-1]
        if not re.search(r"\b%s\b" % obj, call):
            w("    (void)%s;" % obj)
    used = "\n".join(lines) + "\n" + call
    for p in fn.params:   # what the standard asks and we ignore (reorder)
        if not p.is_varargs and not re.search(r"\b%s\b" % p.name, used):
            w("    (void)%s;" % p.name)
    if row.ret == "void":
        w("    %s;" % call)
        w("    return MPI_SUCCESS;")
    elif row.ret == "raised":
        w("    return %s;" % call)
    else:
        w("    return SMAP_RAISE_RC(F, %s, %s);" % (errc, call))
    w("}")
    return out


def gen_family(family, functions, wrap, note):
    by_name = {f.name: f for f in functions}
    missing = sorted(set(family.rows) - set(by_name))
    if missing:
        raise ValueError("gen_binding: %s: not MPI 5.0 functions: %s"
                         % (family.name, ", ".join(missing)))
    out = []
    w = out.append
    w("/* " + wrap(family.doc, " * "))
    w(" *")
    w(" * " + wrap(note, " * "))
    w(" * " + wrap("The checks come from the parameters' kinds; the call below and any "
                   "extra check from scripts/gen_binding.py's table.", " * "))
    w(" */")
    w("#include <mpi.h>")
    w("")
    w('#include "binding/check.h"')
    for inc in family.includes:
        w('#include "%s"' % inc)
    for name in sorted(family.rows):
        out.extend(gen_stub(by_name[name], family, family.rows[name]))
    return "\n".join(out) + "\n"


COLL_FAMILY_DOC = (
    "The collectives: MPI_Barrier ... MPI_Reduce_scatter_block, their large-count "
    "twins, their non-blocking (MPI_I...) and persistent (..._init) forms, and the "
    "neighbourhood collectives (src/coll/nbc/neighbor.c).  The kinds "
    "give no check here: src/coll/entry checks every argument (root, buffers, counts, "
    "types, op, MPI_IN_PLACE, intercommunicators) and makes one call through the "
    "communicator's collectives table (src/coll/dispatch.c).")


def families(functions):
    """FAMILIES, the collectives and the one-sided operations, whose rows
    depend on which names the standard has."""
    names = {f.name for f in functions}
    rows = coll_rows(names)
    rows.update(neighbor_rows(names))
    return FAMILIES + [
        Family("coll", COLL_FAMILY_DOC, ["coll/entry/entry.h", "coll/nbc/neighbor.h"], rows),
        Family("win_ops",
               "One-sided operations (MPI 5.0 section 12.3): the large-count forms, the "
               "request-based ones (MPI_Rput ...: operations on the node are complete when "
               "they return, the request is a completed one) and MPI_Compare_and_swap.  "
               "src/rma/op_args.c checks the arguments; MPI_Put, MPI_Get, MPI_Accumulate, "
               "MPI_Get_accumulate and MPI_Fetch_and_op are hand-written (rma_ops.c: "
               "their inline fast paths).  Errors go to the window's handler.",
               ["rma/rma.h"], rma_op_rows(names), targets=("MPI_Win",))]


def generated_names(functions):
    """{MPI name: path of its generated file, relative to src/binding}."""
    return {name: "gen/%s.c" % fam.name for fam in families(functions) for name in fam.rows}


def generate(functions, wrap, note):
    return {"%s/%s.c" % (OUT_DIR, fam.name): gen_family(fam, functions, wrap, note)
            for fam in families(functions)}
