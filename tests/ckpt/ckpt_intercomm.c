/* Checkpoint scenario: an inter-communicator between the even and the odd
 * ranks, and the intra-communicator merged from it, both made once before
 * any checkpoint and used on every step, so that a restart (under either
 * MPI) must give back both with their handles and meaning. Each of STEPS
 * steps, one rank in turn computes for UNITS units first, so that checkpoints
 * land while the others wait inside a call on the inter-communicator:
 *   - point-to-point: a send to the remote rank of the same number and a
 *     receive from MPI_ANY_SOURCE (its status must name that remote rank),
 *     an MPI_Sendrecv, an MPI_Iprobe loop;
 *   - every collective mpcr makes over an inter-communicator (Barrier,
 *     Bcast with MPI_ROOT/MPI_PROC_NULL, Reduce, Allreduce, Gather,
 *     Scatter, Allgather, Alltoall, Gatherv, Allgatherv, Alltoallv,
 *     Reduce_scatter_block), and an Allreduce and a Bcast over the merged
 *     communicator;
 *   - every 4th step a Comm_dup and a Comm_split of the inter-communicator,
 *     used once and freed;
 *   - the queries (test_inter, sizes, remote group, compare with the dup)
 *     checked against their first answers;
 *   - an MPI_Iallreduce and an MPI_Ibarrier on the inter-communicator,
 *     begun first and completed last, outstanding through all the above.
 *   ckpt_intercomm [STEPS [UNITS]]   (default 48 50; 4 ranks or any even number) */
#include "ckpt.h"

static uint64_t sum;

static void fold(uint64_t v)
{
    sum = mix2(sum, v);
}

/* The remote group as world ranks, folded into a number. */
static uint64_t remote_signature(MPI_Comm ic)
{
    MPI_Group rg, world;
    int n;
    MPI_Comm_remote_group(ic, &rg);
    MPI_Group_size(rg, &n);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    uint64_t s = (uint64_t)n;
    for (int i = 0; i < n; i++) {
        int w;
        MPI_Group_translate_ranks(rg, 1, &i, world, &w);
        s = mix2(s, (uint64_t)w);
    }
    MPI_Group_free(&rg);
    MPI_Group_free(&world);
    return s;
}

static uint64_t queries(MPI_Comm ic)
{
    int inter, size, rank, rsize;
    MPI_Comm_test_inter(ic, &inter);
    MPI_Comm_size(ic, &size);
    MPI_Comm_rank(ic, &rank);
    MPI_Comm_remote_size(ic, &rsize);
    return mix2(remote_signature(ic), (uint64_t)(inter + 2 * size + 16 * rank + 256 * rsize));
}

static void p2p(MPI_Comm ic, int r, long step)
{
    uint64_t out = mix2((uint64_t)step, sum), in = 0;
    MPI_Status st;
    MPI_Request q;
    MPI_Irecv(&in, 1, MPI_UINT64_T, MPI_ANY_SOURCE, 1, ic, &q);
    MPI_Send(&out, 1, MPI_UINT64_T, r, 1, ic);
    MPI_Wait(&q, &st);
    check(st.MPI_SOURCE == r, "step %ld: any-source status names %d, not %d", step, st.MPI_SOURCE,
          r);
    fold(in);
    uint64_t back = 0;
    MPI_Sendrecv(&in, 1, MPI_UINT64_T, r, 2, &back, 1, MPI_UINT64_T, r, 2, ic, &st);
    fold(back);
    int flag = 0;
    MPI_Send(&back, 1, MPI_UINT64_T, r, 3, ic);
    while (!flag)
        MPI_Iprobe(MPI_ANY_SOURCE, 3, ic, &flag, &st);
    check(st.MPI_SOURCE == r, "step %ld: probe status names %d", step, st.MPI_SOURCE);
    MPI_Recv(&back, 1, MPI_UINT64_T, st.MPI_SOURCE, 3, ic, MPI_STATUS_IGNORE);
    fold(back);
}

static void collectives(MPI_Comm ic, int a, int n, long step)
{
    int r;
    MPI_Comm_rank(ic, &r);
    int root = (int)(step % n);
    uint64_t v[4] = {sum, (uint64_t)step, (uint64_t)r, sum ^ 0x55}, w[4] = {0};
    MPI_Barrier(ic);
    /* group a's rank `root` broadcasts to group b */
    if (a)
        MPI_Bcast(v, 4, MPI_UINT64_T, r == root ? MPI_ROOT : MPI_PROC_NULL, ic);
    else
        MPI_Bcast(w, 4, MPI_UINT64_T, root, ic);
    fold(w[0] ^ w[3]);
    MPI_Allreduce(v, w, 4, MPI_UINT64_T, MPI_BXOR, ic);
    fold(w[0] + w[1] + w[2] + w[3]);
    uint64_t red[4] = {0};
    if (a)
        MPI_Reduce(v, red, 4, MPI_UINT64_T, MPI_SUM, r == root ? MPI_ROOT : MPI_PROC_NULL, ic);
    else
        MPI_Reduce(v, NULL, 4, MPI_UINT64_T, MPI_SUM, root, ic);
    fold(red[0] ^ red[2]);
    uint64_t all[64] = {0};
    MPI_Allgather(v, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, ic);
    for (int i = 0; i < 2 * n; i++)
        fold(all[i]);
    uint64_t to[32], from[32] = {0};
    for (int i = 0; i < n; i++)
        to[i] = mix2(sum, (uint64_t)i);
    MPI_Alltoall(to, 1, MPI_UINT64_T, from, 1, MPI_UINT64_T, ic);
    for (int i = 0; i < n; i++)
        fold(from[i]);
    /* group b's rank `root` gathers group a's blocks, then scatters back */
    uint64_t got[32] = {0}, one = 0;
    if (!a) {
        MPI_Gather(NULL, 0, MPI_UINT64_T, got, 1, MPI_UINT64_T,
                   r == root ? MPI_ROOT : MPI_PROC_NULL, ic);
        for (int i = 0; i < n; i++)
            got[i] = mix64(got[i]);
        MPI_Scatter(got, 1, MPI_UINT64_T, NULL, 0, MPI_UINT64_T,
                    r == root ? MPI_ROOT : MPI_PROC_NULL, ic);
    } else {
        MPI_Gather(&v[0], 1, MPI_UINT64_T, NULL, 0, MPI_UINT64_T, root, ic);
        MPI_Scatter(NULL, 0, MPI_UINT64_T, &one, 1, MPI_UINT64_T, root, ic);
    }
    fold(got[0] ^ one);
    /* the v forms: blocks of 1 to 3 elements, changing with the step */
    int cnt[32], dsp[32], mine = (int)((r + step) % 2) + 1;
    uint64_t vin[96], vout[192] = {0};
    for (int i = 0; i < 3 * n; i++)
        vin[i] = mix2(sum, (uint64_t)i + 100);
    for (int i = 0; i < n; i++)
        cnt[i] = (int)((i + step) % 2) + 1, dsp[i] = 3 * (n - 1 - i);
    if (a)
        MPI_Gatherv(NULL, 0, MPI_UINT64_T, vout, cnt, dsp, MPI_UINT64_T,
                    r == root ? MPI_ROOT : MPI_PROC_NULL, ic);
    else
        MPI_Gatherv(vin, mine, MPI_UINT64_T, NULL, NULL, NULL, MPI_UINT64_T, root, ic);
    MPI_Allgatherv(vin, mine, MPI_UINT64_T, vout + 3 * n, cnt, dsp, MPI_UINT64_T, ic);
    for (int i = 0; i < n; i++) /* local rank r and remote rank i: the same count */
        cnt[i] = (int)((r + i + step) % 3), dsp[i] = 3 * i;
    MPI_Alltoallv(vin, cnt, dsp, MPI_UINT64_T, vout, cnt, dsp, MPI_UINT64_T, ic);
    for (int i = 0; i < 6 * n; i++)
        fold(vout[i]);
    MPI_Reduce_scatter_block(vin, vout, 2, MPI_UINT64_T, MPI_BXOR, ic);
    fold(vout[0] + 3 * vout[1]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long steps = arg_long(argc, argv, 1, 48), units = arg_long(argc, argv, 2, 50);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    check(np % 2 == 0, "an even number of ranks, not %d", np);
    int a = me % 2 == 0, n = np / 2;
    MPI_Comm local, ic, merged;
    MPI_Comm_split(MPI_COMM_WORLD, !a, me, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, a ? 1 : 0, 42, &ic);
    MPI_Intercomm_merge(ic, !a, &merged);
    int r, mr;
    MPI_Comm_rank(ic, &r);
    MPI_Comm_rank(merged, &mr);
    check(mr == (a ? r : n + r), "merged rank %d", mr);
    uint64_t first = queries(ic);
    for (long step = 0; step < steps; step++) {
        /* a non-blocking Iallreduce and Ibarrier outstanding meanwhile */
        uint64_t nb_in[2] = {sum, (uint64_t)step}, nb_out[2] = {0};
        MPI_Request nb[2];
        MPI_Iallreduce(nb_in, nb_out, 2, MPI_UINT64_T, MPI_BXOR, ic, &nb[0]);
        MPI_Ibarrier(ic, &nb[1]);
        if (step % np == me) fold(compute(mix2(sum, (uint64_t)step), units));
        p2p(ic, r, step);
        collectives(ic, a, n, step);
        MPI_Status nb_st[2];
        MPI_Waitall(2, nb, nb_st);
        fold(nb_out[0] + nb_out[1]);
        uint64_t x = mix2(sum, (uint64_t)mr), y = 0;
        MPI_Allreduce(&x, &y, 1, MPI_UINT64_T, MPI_BXOR, merged);
        fold(y);
        MPI_Bcast(&y, 1, MPI_UINT64_T, (int)(step % np), merged);
        fold(y);
        check(queries(ic) == first, "step %ld: the inter-communicator's queries changed", step);
        if (step % 4 == 0) {
            MPI_Comm dup, split;
            MPI_Comm_dup(ic, &dup);
            int cmp;
            MPI_Comm_compare(ic, dup, &cmp);
            check(cmp == MPI_CONGRUENT, "step %ld: compare with its dup: %d", step, cmp);
            p2p(dup, r, step);
            MPI_Comm_split(ic, r % 2, -r, &split); /* both groups alike: never MPI_COMM_NULL */
            uint64_t s = sum, t = 0;
            MPI_Allreduce(&s, &t, 1, MPI_UINT64_T, MPI_BXOR, split);
            fold(t);
            MPI_Comm_free(&split);
            MPI_Comm_free(&dup);
        }
        progress("intercomm: step %ld done\n", step);
    }
    MPI_Comm_free(&merged);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    const char *names[] = {"checksum"};
    report("intercomm", names, &sum, 1);
    MPI_Finalize();
    return 0;
}
