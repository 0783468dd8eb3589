/* The compiled part of the TREC readers (trec_scan.py loads it; trec_files.py uses it).
 *
 * trec_scan   splits a file in the regular form into columns in one pass, or says it is not
 *             in that form (then the general reader in Python reads it and words the error);
 * trec_pack   packs strings of the file as rows of big-endian 64-bit words and hashes them,
 *             exactly as trec_files.pack_text and trec_files.text_hash do;
 * trec_has_duplicates  finds a (topic, document) pair given twice, with a hash table;
 * trec_index, trec_locate  find run rows among the judged (topic, document) pairs, with one per topic;
 * trec_block_order  the evaluation order of a run written in it, topic by topic, best first.
 *
 * Plain C99, no Python headers: built by the install (setup.py), called through ctypes. Every
 * buffer is the caller's.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The version of this file the library was built from (setup.py defines it: a hash of the
 * file), so that trec_scan.py never calls a library built from another version. */
#ifndef TREC_SCAN_SOURCE
#define TREC_SCAN_SOURCE "unknown"
#endif
const char *trec_source(void) { return TREC_SCAN_SOURCE; }

enum { SKIP = 0, KEEP = 1, NUMBER = 2, SAME = 3, GROUP = 4, MAX_COLUMNS = 16 };
/* The longest number field read here: trec_files.NUMBER_LIMIT (a test holds them equal). */
enum { NUMBER_LIMIT = 64 };

static const double POW10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The decimal number [+-]?(d+[.d*]|.d+)([eE][+-]?d+)? that is exactly the bytes [p, end), as
 * Python's float() reads it (correctly rounded); -1 for anything else (hexadecimal, inf, nan,
 * underscores, ...), which the general reader then judges.
 *
 * Up to 19 significant digits with a power of ten within 1e±22 (every score a system prints)
 * take Clinger's fast path: the digits are exact in a double below 2^53, and so is the power,
 * so one division or multiplication rounds once, correctly. The rest go to strtod, which
 * rounds correctly too (glibc, musl; the "C" locale's decimal point is checked by its end). */
static int parse_decimal(const uint8_t *p, const uint8_t *end, double *out) {
    const uint8_t *start = p;
    int negative = 0, significant = 0, exponent = 0, digits = 0, inexact = 0;
    uint64_t mantissa = 0;
    if (p < end && (*p == '+' || *p == '-')) negative = *p++ == '-';
    for (; p < end && *p >= '0' && *p <= '9'; p++, digits++) {
        if (significant < 19) {
            mantissa = mantissa * 10 + (uint64_t)(*p - '0');
            significant += mantissa != 0;
        } else {
            exponent++, inexact = 1;
        }
    }
    if (p < end && *p == '.') {
        for (p++; p < end && *p >= '0' && *p <= '9'; p++, digits++) {
            if (significant < 19) {
                mantissa = mantissa * 10 + (uint64_t)(*p - '0');
                significant += mantissa != 0;
                exponent--;
            } else {
                inexact = 1;
            }
        }
    }
    if (digits == 0) return -1;
    if (p < end && (*p == 'e' || *p == 'E')) {
        int negative_exponent = 0, value = 0, exponent_digits = 0;
        p++;
        if (p < end && (*p == '+' || *p == '-')) negative_exponent = *p++ == '-';
        for (; p < end && *p >= '0' && *p <= '9'; p++, exponent_digits++)
            if (value < 100000) value = value * 10 + (*p - '0');
        if (exponent_digits == 0) return -1;
        exponent += negative_exponent ? -value : value;
    }
    if (p != end) return -1;
    if (!inexact && mantissa < (UINT64_C(1) << 53) && exponent >= -22 && exponent <= 22) {
        double value = (double)mantissa;
        value = exponent < 0 ? value / POW10[-exponent] : value * POW10[exponent];
        *out = negative ? -value : value;
        return 0;
    }
    char text[512];
    size_t length = (size_t)(end - start);
    if (length >= sizeof text) return -1;
    memcpy(text, start, length);
    text[length] = 0;
    char *stop;
    *out = strtod(text, &stop);
    return stop == text + length ? 0 : -1;
}

static const uint64_t ONES = UINT64_C(0x0101010101010101), HIGHS = UINT64_C(0x8080808080808080);

/* The first byte at or after p that is not printable ASCII ('!' to '~'), or end. Eight bytes
 * at a time (a field's end is found without a branch a byte): in a word, a byte below '!' is
 * flagged by the borrow of subtracting '!' from every byte (exact for the lowest flagged
 * byte, the one that counts), a byte above '~' by the high bit of its low seven bits plus
 * one, or its own. */
static const uint8_t *field_end(const uint8_t *p, const uint8_t *end) {
    for (; end - p >= 8; p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        w = __builtin_bswap64(w); /* the first byte in the lowest bits */
#endif
        uint64_t stop = ((w - ONES * 0x21) & ~w & HIGHS) | ((((w & ~HIGHS) + ONES) | w) & HIGHS);
        if (stop) return p + (__builtin_ctzll(stop) >> 3);
    }
    while (p < end && (uint8_t)(*p - 0x21) < 0x5e) p++;
    return p;
}

/* Split buf[0, size) into rows of ncols columns, or return -1 if it is not in the regular form:
 * ASCII; fields of printable, non-space bytes; one separator between fields, a space or a tab,
 * the same in the whole file; lines ending in \n or \r\n (the last may end without); no blank
 * line; no line whose first field starts with '#'. A NUMBER field must be a finite decimal
 * (parse_decimal) and a SAME field equal on every row.
 *
 * kinds[c] says what becomes of column c: SKIP (only checked to be there), KEEP (offset and
 * length recorded in offsets[k * maxrows + row], lengths[...] for the k-th KEEP, SAME or GROUP
 * column), NUMBER (parsed into values[row]; at most one such column), SAME (offset and length
 * of the first row recorded, at row 0), GROUP (as KEEP, but a row whose field equals the
 * previous row's gets length -1 and no offset: only the first row of each block of equal
 * values is recorded). Returns the number of rows; -1 also if there are more than maxrows or
 * more than MAX_COLUMNS columns. */
long trec_scan(const uint8_t *buf, long size, int ncols, const int32_t *kinds, long maxrows,
               int64_t *offsets, int32_t *lengths, double *values) {
    const uint8_t *p = buf, *end = buf + size;
    const uint8_t *block[MAX_COLUMNS]; /* a GROUP column's field in its block's first row */
    int32_t block_length[MAX_COLUMNS];
    uint8_t separator = 0;
    long row = 0;
    if (ncols > MAX_COLUMNS) return -1;
    while (p < end) {
        if (row >= maxrows) return -1;
        for (int c = 0, k = 0; c < ncols; c++) {
            const uint8_t *field = p;
            p = field_end(p, end);
            long length = p - field;
            if (length == 0 || (c == 0 && *field == '#')) return -1;
            if (c < ncols - 1) {
                if (p == end) return -1;
                if (separator == 0 && (*p == ' ' || *p == '\t')) separator = *p;
                if (*p++ != separator) return -1;
            } else if (p < end) {
                if (*p == '\r' && ++p == end) return -1;
                if (*p++ != '\n') return -1;
            }
            switch (kinds[c]) {
            case KEEP:
                offsets[k * maxrows + row] = field - buf;
                lengths[k++ * maxrows + row] = (int32_t)length;
                break;
            case NUMBER:
                if (length > NUMBER_LIMIT || parse_decimal(field, field + length, &values[row]) || !isfinite(values[row]))
                    return -1;
                break;
            case SAME:
                if (row == 0) {
                    offsets[k * maxrows] = field - buf;
                    lengths[k * maxrows] = (int32_t)length;
                } else if (length != lengths[k * maxrows] || memcmp(field, buf + offsets[k * maxrows], length)) {
                    return -1;
                }
                k++;
                break;
            case GROUP:
                if (row > 0 && length == block_length[c] && memcmp(field, block[c], length) == 0) {
                    lengths[k++ * maxrows + row] = -1;
                } else {
                    block[c] = field;
                    block_length[c] = (int32_t)length;
                    offsets[k * maxrows + row] = field - buf;
                    lengths[k++ * maxrows + row] = (int32_t)length;
                }
                break;
            }
        }
        row++;
    }
    return row;
}

static uint64_t splitmix(uint64_t z) {
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint64_t big_endian(uint64_t word) { /* the 8 bytes as loaded, read most significant first */
    const uint8_t *b = (const uint8_t *)&word;
    return (uint64_t)b[0] << 56 | (uint64_t)b[1] << 48 | (uint64_t)b[2] << 40 | (uint64_t)b[3] << 32 |
           (uint64_t)b[4] << 24 | (uint64_t)b[5] << 16 | (uint64_t)b[6] << 8 | (uint64_t)b[7];
}

/* Pack the n strings buf[offsets[i], offsets[i] + lengths[i]) (buf has size bytes) into words[i * width + j]: the
 * string's bytes, zero padded, read as big-endian 64-bit words (trec_files.pack_text); every
 * length must be at most 8 * width. If keys is not NULL, keys[i] is the string's text_hash:
 * splitmix(sum_j words[j] * (splitmix(j + 1) | 1)), modulo 2^64. */
void trec_pack(const uint8_t *buf, long size, const int64_t *offsets, const int32_t *lengths, long n, int width,
               uint64_t *words, uint64_t *keys) {
    const uint8_t *end = buf + size;
    uint64_t multiplier[8]; /* the first words' (a document number is rarely longer) */
    for (int j = 0; j < 8; j++) multiplier[j] = splitmix((uint64_t)j + 1) | 1;
    for (long i = 0; i < n; i++) {
        const uint8_t *s = buf + offsets[i];
        int32_t left = lengths[i];
        uint64_t z = 0;
        for (int j = 0; j < width; j++) {
            uint64_t word = 0;
            if (left >= 8) {
                memcpy(&word, s, 8);
                word = big_endian(word);
            } else if (left > 0 && s + 8 <= end) { /* the string's last bytes and what follows, masked */
                memcpy(&word, s, 8);
                word = big_endian(word) & (~UINT64_C(0) << (64 - 8 * left));
            } else {
                for (int b = 0; b < left; b++) word |= (uint64_t)s[b] << (56 - 8 * b);
            }
            words[i * width + j] = word;
            z += word * (j < 8 ? multiplier[j] : splitmix((uint64_t)j + 1) | 1);
            s += 8;
            left -= 8;
        }
        if (keys) keys[i] = splitmix(z);
    }
}

/* Does a (topic, string) pair occur twice among n rows? Strings packed (width words a row),
 * keys their hashes. The rows come in blocks, the b-th from starts[b] to starts[b + 1] - 1
 * (n for the last), and a pair can repeat only within a block (the caller knows: one block of
 * all rows, or a block per topic where each topic is one block). Open addressing over a table
 * of at least twice a block's rows, by the key mixed with the topic, cleared for each block
 * (a small block's table stays in the cache); equal hashes are confirmed on the topic and the
 * words. Returns 1 or 0, or -1 if the table could not be allocated. */
int trec_has_duplicates(long n, const int64_t *topic, const uint64_t *words, int width, const uint64_t *keys,
                        long blocks, const int64_t *starts) {
    long largest = 0;
    for (long b = 0; b < blocks; b++) {
        long rows = (b + 1 < blocks ? starts[b + 1] : n) - starts[b];
        if (rows > largest) largest = rows;
    }
    uint64_t most = 16;
    while (most < 2 * (uint64_t)largest) most <<= 1;
    int64_t *table = malloc(most * sizeof *table);
    if (!table) return -1;
    int found = 0;
    for (long b = 0; b < blocks && !found; b++) {
        long last = b + 1 < blocks ? starts[b + 1] : n;
        uint64_t slots = 16;
        while (slots < 2 * (uint64_t)(last - starts[b])) slots <<= 1;
        memset(table, 0xff, slots * sizeof *table); /* -1: empty */
        uint64_t mask = slots - 1;
        for (long i = starts[b]; i < last && !found; i++) {
            uint64_t h = splitmix(keys[i] ^ ((uint64_t)topic[i] * UINT64_C(0x9E3779B97F4A7C15)));
            for (uint64_t s = h & mask;; s = (s + 1) & mask) {
                int64_t other = table[s];
                if (other < 0) {
                    table[s] = i;
                    break;
                }
                if (keys[other] == keys[i] && topic[other] == topic[i] &&
                    memcmp(words + other * width, words + i * width, (size_t)width * sizeof *words) == 0) {
                    found = 1;
                    break;
                }
            }
        }
    }
    free(table);
    return found;
}

/* A slot of trec_index's tables: the high half of a string's hash and its row within its
 * topic (-1: free). Eight bytes, so that a topic's table is small enough to stay in the cache. */
typedef struct {
    uint32_t tag;
    int32_t row;
} slot;

/* Index each topic's strings for trec_locate. Topic t's rows are bounds[t] to bounds[t + 1] - 1
 * (distinct strings; keys their hashes); its table is table[base[t]] to table[base[t + 1] - 1],
 * a power of two of more slots than rows, all free when called. Open addressing from the
 * hash's low bits. A table per topic stays in the cache while a run's rows of that topic
 * (they come topic by topic) are looked up. */
void trec_index(long topics, const int64_t *bounds, const uint64_t *keys, const int64_t *base, slot *table) {
    for (long t = 0; t < topics; t++) {
        slot *own = table + base[t];
        uint64_t mask = (uint64_t)(base[t + 1] - base[t]) - 1;
        for (int64_t i = bounds[t]; i < bounds[t + 1]; i++) {
            uint64_t s = keys[i] & mask;
            while (own[s].row >= 0) s = (s + 1) & mask;
            own[s].tag = (uint32_t)(keys[i] >> 32);
            own[s].row = (int32_t)(i - bounds[t]);
        }
    }
}

/* Are two packed strings equal? Widths may differ: a missing word is zero (padding). */
static int same_words(const uint64_t *a, int a_width, const uint64_t *b, int b_width) {
    int width = a_width > b_width ? a_width : b_width;
    for (int j = 0; j < width; j++)
        if ((j < a_width ? a[j] : 0) != (j < b_width ? b[j] : 0)) return 0;
    return 1;
}

/* Where the search for a string (its hash key) of topic t starts: its slot in t's table. */
static const slot *home_slot(const slot *table, const int64_t *base, int64_t t, uint64_t key) {
    return table + base[t] + (key & (uint64_t)(base[t + 1] - base[t] - 1));
}

/* How many rows ahead trec_locate asks for a row's words; its slot twice as many ahead. A
 * run's lookups, after a file was read, mostly miss the cache: fetched early, they overlap. */
enum { AHEAD = 8 };

/* For each of m (topic, string) pairs (strings packed, width words a row; keys their hashes;
 * a topic below 0 is none): the row within its topic of the same string among the indexed
 * ones (trec_index; iwords their strings packed, iwidth words a row, topic by topic), or -1.
 * Equal hashes (their low bits give the slot, the high half is kept) are confirmed on the
 * words, so a hash collision never gives a wrong row. */
void trec_locate(long m, const int64_t *topic, const uint64_t *words, int width, const uint64_t *keys,
                 const slot *table, const int64_t *base, const int64_t *bounds, const uint64_t *iwords, int iwidth,
                 int32_t *out) {
    for (long i = 0; i < m; i++) {
        if (i + 2 * AHEAD < m && topic[i + 2 * AHEAD] >= 0)
            __builtin_prefetch(home_slot(table, base, topic[i + 2 * AHEAD], keys[i + 2 * AHEAD]));
        if (i + AHEAD < m && topic[i + AHEAD] >= 0) {
            const slot *ahead = home_slot(table, base, topic[i + AHEAD], keys[i + AHEAD]);
            if (ahead->row >= 0) __builtin_prefetch(iwords + (bounds[topic[i + AHEAD]] + ahead->row) * iwidth);
        }
        int64_t t = topic[i], found = -1;
        if (t >= 0) {
            const slot *own = table + base[t];
            uint64_t mask = (uint64_t)(base[t + 1] - base[t]) - 1;
            for (uint64_t s = keys[i] & mask; own[s].row >= 0; s = (s + 1) & mask) {
                if (own[s].tag == (uint32_t)(keys[i] >> 32) &&
                    same_words(iwords + (bounds[t] + own[s].row) * iwidth, iwidth, words + i * width, width)) {
                    found = own[s].row;
                    break;
                }
            }
        }
        out[i] = (int32_t)found;
    }
}

/* Is packed string a after b in byte order? (words compared as unsigned numbers, first word first) */
static int words_after(const uint64_t *a, const uint64_t *b, int width) {
    for (int j = 0; j < width; j++)
        if (a[j] != b[j]) return a[j] > b[j];
    return 0;
}

/* Ties longer than this go to the caller's sort (an insertion sort is quadratic). */
enum { LONGEST_TIE = 64 };

/* The order in which trec_eval takes the n rows of a run (order[k]: the k-th row), when each
 * topic's rows come as one block and scores never rise within a block, as runs are written:
 * blocks by topic (topic[i] from 0 to topics - 1), rows of a block in file order, except that
 * rows of equal score go by document number (strings packed, width words a row) descending.
 * Returns 1; 0 if the run is not written so (a topic in two blocks, a score rising, more
 * than LONGEST_TIE equal scores in a row): then the caller sorts; -1 if out of memory. */
int trec_block_order(long n, const int64_t *topic, const double *score, const uint64_t *words, int width,
                     long topics, int64_t *order) {
    int64_t *first = malloc((size_t)(topics > 0 ? topics : 1) * 2 * sizeof *first), *length = first + topics;
    if (!first) return -1;
    for (long t = 0; t < topics; t++) first[t] = -1;
    int written = 1;
    for (long i = 0, j; i < n && written; i = j) { /* the block of rows i to j - 1 */
        for (j = i + 1; j < n && topic[j] == topic[i]; j++)
            if (score[j] - score[j - 1] > 0) written = 0;
        if (first[topic[i]] >= 0) written = 0;
        first[topic[i]] = i;
        length[topic[i]] = j - i;
    }
    long k = 0;
    for (long t = 0; t < topics && written; t++) {
        long tie = 0; /* rows just before this one with its score: placed already, by docno */
        for (long r = first[t]; first[t] >= 0 && r < first[t] + length[t]; r++, k++) {
            tie = r > first[t] && score[r] - score[r - 1] == 0 ? tie + 1 : 0;
            if (tie > LONGEST_TIE) {
                written = 0;
                break;
            }
            long p = k; /* insertion: after every tied row whose docno is greater */
            while (p > k - tie && words_after(words + r * width, words + order[p - 1] * width, width)) {
                order[p] = order[p - 1];
                p--;
            }
            order[p] = r;
        }
    }
    free(first);
    return written;
}
