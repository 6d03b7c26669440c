/* The coordinator's line protocol (src/common/coord_protocol.h): every row
 * of the table parses the lines built from it (table_line.h, as the fuzzer
 * builds them) back to itself, with its numbers; lines off the pattern are
 * refused; a sender cannot send another's lines; and the protocol's page,
 * docs/coordinator-protocol.md, lists every row as the table has it. */
#include "coord_protocol.h"
#include "table_line.h"
#include "unit.h"

static struct mpcr_line parse_ok(const char *line, unsigned from, enum mpcr_line_kind kind)
{
    struct mpcr_line m;
    if (mpcr_coord_line_parse(line, from, &m)) UNIT_FAIL("\"%s\" refused", line);
    if (m.kind != kind)
        UNIT_FAIL("\"%s\" parsed as %s %s, not %s %s", line, mpcr_coord_lines[m.kind].word,
                  mpcr_coord_lines[m.kind].args, mpcr_coord_lines[kind].word,
                  mpcr_coord_lines[kind].args);
    return m;
}

static void every_row_parses_its_lines(void)
{
    for (int k = 0; k < MPCR_LINE_KINDS; k++)
        for (int seed = 0; seed < 256; seed++) {
            uint8_t bytes[24];
            for (size_t i = 0; i < sizeof bytes; i++)
                bytes[i] = (uint8_t)(seed * 131 + i * (seed | 1));
            char line[256];
            table_line(k, bytes, sizeof bytes, line, sizeof line);
            parse_ok(line, mpcr_coord_lines[k].from, (enum mpcr_line_kind)k);
        }
}

static void arguments(void)
{
    struct mpcr_line m =
        parse_ok("image 7 ok 4096 forked 12", MPCR_FROM_ENGINE, MPCR_LINE_IMAGE_OK);
    ASSERT_EQ(m.nnum, 3);
    ASSERT_EQ(m.num[0], 7);
    ASSERT_EQ(m.num[1], 4096);
    ASSERT_EQ(m.num[2], 12);
    ASSERT_EQ(m.opt, 1);
    m = parse_ok("image 7 ok 4096", MPCR_FROM_ENGINE, MPCR_LINE_IMAGE_OK);
    ASSERT_EQ(m.opt, 0);
    m = parse_ok("image 3 error no space left", MPCR_FROM_ENGINE, MPCR_LINE_IMAGE_ERROR);
    ASSERT_TRUE(!strcmp(m.text, "no space left"));
    m = parse_ok("proxy 2 1 4 999 abc123", MPCR_FROM_PROXY, MPCR_LINE_HELLO);
    ASSERT_EQ(m.num[3], 999);
    ASSERT_TRUE(!strcmp(m.word, "abc123"));
    m = parse_ok("where 7 1 inside MPI_Recv (stage 2)", MPCR_FROM_PROXY, MPCR_LINE_WHERE_AT);
    ASSERT_TRUE(!strcmp(m.text, "inside MPI_Recv (stage 2)"));
    m = parse_ok("count 18446744073709551615 1", MPCR_FROM_PROXY, MPCR_LINE_COUNT);
    ASSERT_TRUE(m.num[0] == ~0ull);
    ASSERT_EQ(parse_ok("checkpoint exit", MPCR_FROM_CLIENT, MPCR_LINE_CHECKPOINT).opt, 1);
    ASSERT_EQ(parse_ok("checkpoint", MPCR_FROM_CLIENT, MPCR_LINE_CHECKPOINT).opt, 0);
    ASSERT_EQ(parse_ok("exit", MPCR_FROM_COORD, MPCR_LINE_EXIT).nnum, 0);
    ASSERT_EQ(parse_ok("exit 4", MPCR_FROM_COORD, MPCR_LINE_EXIT).num[0], 4);
}

static void refusals(void)
{
    static const struct {
        const char *line;
        unsigned from;
    } bad[] = {
        {"", ~0u},
        {"checkpoint ", MPCR_FROM_CLIENT},
        {"checkpoint  exit", MPCR_FROM_CLIENT},
        {"checkpoint exits", MPCR_FROM_CLIENT},
        {"ping pong", MPCR_FROM_CLIENT},
        {"quiet 7 1", MPCR_FROM_PROXY},
        {"quiet 7 1 2 3", MPCR_FROM_PROXY},
        {"quiet 7 1 -2", MPCR_FROM_PROXY},
        {"quiet 7 1 2x", MPCR_FROM_PROXY},
        {"count 18446744073709551616 1", MPCR_FROM_PROXY},
        {"busy 7", MPCR_FROM_PROXY},
        {"busy 7 ", MPCR_FROM_PROXY},
        {"proxy 2 0 2 123", MPCR_FROM_PROXY},
        {"proxy 2 0 2 123 0123456789abcdef0123456789abcdef", MPCR_FROM_PROXY}, /* word too long */
        {"image 7 ok 4096 forked", MPCR_FROM_ENGINE},
        {"image 7 fine 4096", MPCR_FROM_ENGINE},
        /* a sender's lines only */
        {"quiet 7 1 2", MPCR_FROM_CLIENT | MPCR_FROM_ENGINE},
        {"image 7 ok 4096", MPCR_FROM_PROXY | MPCR_FROM_CLIENT},
        {"checkpoint", MPCR_FROM_PROXY | MPCR_FROM_ENGINE},
        {"resume 7", MPCR_FROM_CLIENT | MPCR_FROM_PROXY | MPCR_FROM_ENGINE},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct mpcr_line m;
        if (!mpcr_coord_line_parse(bad[i].line, bad[i].from, &m))
            UNIT_FAIL("\"%s\" taken as %s", bad[i].line, mpcr_coord_lines[m.kind].word);
    }
}

/* The page lists each row as "`WORD ARGS`" (or "`WORD`"). */
static void documented(const char *page)
{
    FILE *f = fopen(page, "r");
    if (!f) UNIT_FAIL("%s: cannot read", page);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    for (int k = 0; k < MPCR_LINE_KINDS; k++) {
        const struct mpcr_line_row *row = &mpcr_coord_lines[k];
        char want[128];
        snprintf(want, sizeof want, "`%s%s%s`", row->word, row->args[0] ? " " : "", row->args);
        if (!strstr(text, want)) UNIT_FAIL("%s does not list %s", page, want);
    }
}

int main(void)
{
    every_row_parses_its_lines();
    arguments();
    refusals();
    documented(MPCR_PROTOCOL_PAGE);
    printf("coord_protocol: %d rows\n", MPCR_LINE_KINDS);
    return 0;
}
