# C declarations for access.py, read by Cython when setup.py compiles it (access.py is the source
# either way): the walker becomes an extension type whose attributes are C fields and whose
# methods call each other directly, not through an attribute lookup and a Python call each.
# `S.binop`, `S.symbols`... (the functions symbolic.pxd declares) become direct C calls; the
# rest of `S` stays Python attributes. analyzer/_fresh.py: CIMPORTS.
from analyzer cimport symbolic as S

# the grammar's field ids (access.py: _field_ids)
cdef int F_ALTERNATIVE, F_ARGUMENT, F_ARGUMENTS, F_BODY, F_CONDITION, F_CONSEQUENCE, F_DECLARATOR
cdef int F_FIELD, F_FUNCTION, F_INDICES, F_INITIALIZER, F_LEFT, F_NAME, F_OPERATOR
cdef int F_RIGHT, F_SIZE, F_TYPE, F_UPDATE, F_VALUE
cdef list _KINDS     # node type names by kind id (access.py: _kind_names)

cpdef set _symbols_of(object values)
cpdef str _incdec(object node)
cpdef bint _prefix(object node) except -1
cpdef bint _names_any(object node, object names) except -1

cdef class _Walker:
    cdef public object p, k, out, g, counter
    cdef public str ascii
    cdef public dict type_args, consts, env, ptrs, types, _tuples, arrays, array_ptrs, loaded, saddr, lambdas
    cdef public list loops, guards, function_stack, returns, _assign_scans
    cdef public set scalar_params, restrict
    cdef public Py_ssize_t breaks
    cdef public dict unrolled
    cdef public object pragmas
    cdef public list _sizes, blocks, scope_ends

    cpdef str text(self, node)
    cpdef str written(self, node)
    cpdef _tuple(self, items)
    cpdef resolve(self, type_name)
    cpdef size_of(self, type_name)
    cpdef sizeof(self, type_name)
    cpdef local_alias(self, node)
    cpdef bint _unbound_type(self, type_name) except -1
    cpdef fresh(self, name, line, deps)
    cpdef bound(self, e, name, line)
    cpdef _shared_scalar(self, name)
    cpdef define(self, name, value, line)
    cpdef _thread_dependent_now(self, e)
    cpdef run(self)
    cpdef block(self, node)
    cpdef block_rest(self, statements)
    cpdef after_exit(self, exits, rest)
    cpdef statement(self, st)
    cpdef declaration(self, st)
    cpdef bint _macro_barrier(self, node) except -1
    cpdef bint _template_declaration(self, node) except -1
    cpdef if_statement(self, st)
    cpdef _ends_in_exit(self, node)
    cpdef assigned_names(self, node)
    cpdef with_assignments_opaque(self, body)
    cpdef for_statement(self, st)
    cpdef _loop(self, cond_node, line, var, init_value, step, body, update, changed, kind, stepped=*)
    cpdef _note_unrolled(self, Py_ssize_t mark, loop_sym, init, cond, step, Py_ssize_t line)
    cpdef bint _floating(self, node) except -1
    cpdef bint _unrolled_condition(self, cond) except -1
    cpdef _carried(self, changed, var, line, iter_sym, body, update)
    cpdef _continues(self, body)
    cpdef _constant_trips(self, var, init, cond, step, loop_sym, body)
    cpdef _invariant_increment(self, nodes, changed)
    cpdef _invariant_value(self, right, changed)
    cpdef _invariant_shift(self, nodes, changed)
    cpdef _pointer_increment(self, nodes)
    cpdef list _body_locals(self, e)
    cpdef _step(self, update, var)
    cpdef while_statement(self, st)
    cpdef for_range_loop(self, st)
    cpdef _while_counter(self, cond_node, changed, body)
    cpdef _compared(self, cond_node)
    cpdef _compared_operand(self, cond_node)
    cpdef tuple _stepped_test(self, stepped, inc, kind)
    cpdef _group(self, node)
    cpdef const_value(self, node)
    cpdef expr_quiet(self, node)
    cpdef expr(self, node)
    cpdef _misread_comparison(self, template, right)
    cpdef _misread_template(self, template, right, bytes closing)
    cpdef _relink(self, node, left_value, right, bint first, bint last, bint shift)
    cpdef _greater_equal(self, value, right)
    cpdef _op(self, node)
    cpdef number(self, node)
    cpdef field(self, node)
    cpdef binary(self, node)
    cpdef assignment(self, node)
    cpdef update(self, node)
    cpdef call(self, node)
    cpdef _note_double_call(self, name, values, line, col)
    cpdef _async_copy(self, node, args)
    cpdef _fragment(self, node)
    cpdef _fragment_type(self, node)
    cpdef _fragment_shape(self, node)
    cpdef _shape_of(self, m)
    cpdef _matrix_op(self, node, macs)
    cpdef _mma(self, node, args)
    cpdef _ptx_mma(self, node, code)
    cpdef _shared_address(self, node)
    cpdef _asm(self, node)
    cpdef _inline_lambda(self, name, lam, arg_nodes, values)
    cpdef _walk_inlined(self, name, body, line, env, ptrs, types)
    cpdef _bind(self, params, arg_nodes, values, dict env, dict ptrs, dict types)
    cpdef _wmma(self, node, args, bint store)
    cpdef inline_call(self, callee, arg_nodes, values)
    cpdef barrier(self, name, line, col)
    cpdef pointer(self, node)
    cpdef _pointer_field(self, node)
    cpdef _retype(self, p, type_text)
    cpdef _index(self, node)
    cpdef address_of(self, target)
    cpdef _field_ptr(self, node)
    cpdef load(self, node)
    cpdef store(self, node)
    cpdef _visit_children(self, node)
    cpdef _written(self, base)
    cpdef record(self, ptr, kind, node, extra, bint issued=*)
