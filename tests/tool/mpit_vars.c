/* Lists every control variable, performance variable and category as an
 * `mpit_vars`-style tool does, and checks that the listing is consistent:
 * every name maps back to its index, every cvar reads, every variable is
 * in exactly one category, the category tree covers them all. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "smap_test.h"

#define T(call)                                                              \
    do {                                                                     \
        int rc_ = (call);                                                    \
        CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_);             \
    } while (0)

static const char *type_name(MPI_Datatype t)
{
    return t == MPI_INT ? "int" : t == MPI_UNSIGNED_LONG_LONG ? "unsigned long long"
         : t == MPI_CHAR ? "char" : "?";
}

static int verbose;

int main(int argc, char **argv)
{
    int provided;
    T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    verbose = rank == 0;

    int ncvar, npvar, ncat;
    T(MPI_T_cvar_get_num(&ncvar));
    T(MPI_T_pvar_get_num(&npvar));
    T(MPI_T_category_get_num(&ncat));
    CHECK(ncvar >= 10, "only %d control variables (one per tunable expected)", ncvar);
    CHECK(npvar >= 8, "only %d performance variables", npvar);
    CHECK(ncat >= 2, "only %d categories", ncat);

    int cvar_seen[256] = { 0 }, pvar_seen[256] = { 0 };
    CHECK(ncvar < 256 && npvar < 256, "too many variables for this test");
    if (verbose)
        printf("%d control variables:\n", ncvar);
    for (int i = 0; i < ncvar; i++) {
        char name[128], desc[1024];
        int nlen = sizeof name, dlen = sizeof desc, verb, bind, scope, idx;
        MPI_Datatype dt;
        MPI_T_enum en;
        T(MPI_T_cvar_get_info(i, name, &nlen, &verb, &dt, &en, desc, &dlen, &bind, &scope));
        CHECK(nlen == (int)strlen(name) + 1, "cvar %d: name_len %d for '%s'", i, nlen, name);
        CHECK(!strncmp(name, "SMAP_", 5), "cvar %d is named '%s'", i, name);
        CHECK(dlen > 1, "cvar %s has no description", name);
        CHECK(bind == MPI_T_BIND_NO_OBJECT, "cvar %s bind %d", name, bind);
        CHECK(scope >= MPI_T_SCOPE_CONSTANT && scope <= MPI_T_SCOPE_ALL_EQ, "scope %d", scope);
        T(MPI_T_cvar_get_index(name, &idx));
        CHECK(idx == i, "cvar '%s' maps back to %d, not %d", name, idx, i);
        MPI_T_cvar_handle h;
        int count;
        T(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
        char value[512];
        CHECK(count >= 1 && (dt != MPI_CHAR || count <= (int)sizeof value), "count %d", count);
        T(MPI_T_cvar_read(h, value));
        if (verbose) {
            printf("  %-20s %-18s scope %d verbosity %2d = ", name, type_name(dt), scope, verb);
            if (dt == MPI_INT)
                printf("%d", *(int *)value);
            else if (dt == MPI_UNSIGNED_LONG_LONG)
                printf("%llu", *(unsigned long long *)value);
            else if (dt == MPI_CHAR)
                printf("\"%s\"", value);
            else
                CHECK(0, "cvar %s has an unexpected datatype", name);
            if (en != MPI_T_ENUM_NULL) {
                char ename[64];
                int n, elen = sizeof ename;
                T(MPI_T_enum_get_info(en, &n, ename, &elen));
                printf(" (enum %s:", ename);
                for (int k = 0; k < n; k++) {
                    int v;
                    elen = sizeof ename;
                    T(MPI_T_enum_get_item(en, k, &v, ename, &elen));
                    printf(" %s=%d", ename, v);
                }
                printf(")");
            }
            printf("\n");
        }
        T(MPI_T_cvar_handle_free(&h));
        CHECK(h == MPI_T_CVAR_HANDLE_NULL, "handle not reset");
    }

    MPI_T_pvar_session s;
    T(MPI_T_pvar_session_create(&s));
    if (verbose)
        printf("%d performance variables:\n", npvar);
    for (int i = 0; i < npvar; i++) {
        char name[128], desc[1024];
        int nlen = sizeof name, dlen = sizeof desc, verb, cls, bind, ro, cont, atomic, idx;
        MPI_Datatype dt;
        MPI_T_enum en;
        T(MPI_T_pvar_get_info(i, name, &nlen, &verb, &cls, &dt, &en, desc, &dlen, &bind, &ro,
                              &cont, &atomic));
        CHECK(dlen > 1, "pvar %s has no description", name);
        T(MPI_T_pvar_get_index(name, cls, &idx));
        CHECK(idx == i, "pvar '%s' maps back to %d, not %d", name, idx, i);
        MPI_T_pvar_handle h;
        int count;
        T(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count));
        CHECK(count == 1, "pvar %s count %d", name, count);
        union { unsigned long long u; int i; } v = { 0 };
        T(MPI_T_pvar_read(s, h, &v));
        if (verbose)
            printf("  %-34s class %2d %-18s readonly %d continuous %d = %llu\n", name, cls,
                   type_name(dt), ro, cont, dt == MPI_INT ? (unsigned long long)v.i : v.u);
    }
    T(MPI_T_pvar_session_free(&s));
    CHECK(s == MPI_T_PVAR_SESSION_NULL, "session not reset");

    /* The category tree: every variable in exactly one category. */
    int root = -1, total_sub = 0;
    for (int c = 0; c < ncat; c++) {
        char name[128], desc[512];
        int nlen = sizeof name, dlen = sizeof desc, nc, np, nsub, idx;
        T(MPI_T_category_get_info(c, name, &nlen, desc, &dlen, &nc, &np, &nsub));
        T(MPI_T_category_get_index(name, &idx));
        CHECK(idx == c, "category '%s' maps back to %d", name, idx);
        if (!strcmp(name, "smartmap"))
            root = c;
        int idxs[256];
        T(MPI_T_category_get_cvars(c, nc, idxs));
        for (int k = 0; k < nc; k++)
            cvar_seen[idxs[k]]++;
        T(MPI_T_category_get_pvars(c, np, idxs));
        for (int k = 0; k < np; k++)
            pvar_seen[idxs[k]]++;
        T(MPI_T_category_get_categories(c, nsub, idxs));
        total_sub += nsub;
        int nev;
        T(MPI_T_category_get_num_events(c, &nev));
        CHECK(nev == 0, "category %s has %d events", name, nev);
        if (verbose)
            printf("category %-18s %2d cvars %2d pvars %d sub-categories: %s\n", name, nc, np,
                   nsub, desc);
    }
    CHECK(root >= 0, "no root category 'smartmap'");
    CHECK(total_sub == ncat - 1, "the tree holds %d sub-categories of %d", total_sub, ncat - 1);
    for (int i = 0; i < ncvar; i++)
        CHECK(cvar_seen[i] == 1, "cvar %d is in %d categories", i, cvar_seen[i]);
    for (int i = 0; i < npvar; i++)
        CHECK(pvar_seen[i] == 1, "pvar %d is in %d categories", i, pvar_seen[i]);

    MPI_Finalize();
    T(MPI_T_finalize());
    if (verbose)
        printf("mpit_vars: OK\n");
    return 0;
}
