/*
 * The compiled core of the fast engine: the same MTD(f) + alpha-beta search as
 * popejoan_solver/search/fast.py, over the same slot-space tables, with one shared
 * transposition table keyed by (played, leader, objective). Every pruning rule is the one
 * argued in docs/solver.md; the Python engine is its specification and the reference engine
 * its oracle (tests/search/test_solver.py compares all three).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The search counts bits at every node: on x86-64 it is compiled twice, with the POPCNT
 * instruction and without, and the loader picks the one the processor runs (GCC/Clang
 * function multi-versioning, which needs glibc's ifunc), so one build stays portable. */
#if defined(__x86_64__) && defined(__GLIBC__) && \
    ((defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 6) || \
     (defined(__clang__) && __clang_major__ >= 14))

#define HOT __attribute__((target_clones("popcnt", "default")))
#else
#define HOT
#endif

/* Values are counters: 64-bit, since a board may hold up to 2^31 in each compartment. */
typedef long long val_t;
#define INF (1LL << 62)
#define MAX_SEATS 8
#define MAX_AWARDS 16
#define GOAL_GUARANTEED 0
#define GOAL_FORCED_WIN 1
#define GOAL_BEST_CASE 2
#define LEAD_ANY 0
#define LEAD_LOWEST_OF_SUIT 1
#define LEAD_LOWEST_IN_HAND 2
#define CHOICE_SPIN 1
#define CHOICE_IN_LIEU 2
/* A transposition-table bucket is one 64-byte cache line: four narrow entries (16 bytes, bounds
 * as int16) when every value of the deal fits in +-NARROW_LIMIT, else two wide ones (32 bytes,
 * int64 bounds). The layout is chosen once per Core, so no bound is ever clipped. Both start
 * with the key (0, or a key of an earlier generation of the table: empty). */
#define BUCKET_BYTES 64
#define MAX_AMOUNT (1LL << 40)
#define NARROW_LIMIT 30000
#ifndef GIL_NODES
#define GIL_NODES 512
#endif

typedef struct {
    uint64_t key;
    int16_t lower, upper;  /* -NARROW_LIMIT: -INF; NARROW_LIMIT: INF */
    int8_t move;
    uint8_t played_count;  /* replacement: the entry nearest the root is kept */
} Entry;

typedef struct {
    uint64_t key;
    int64_t lower, upper;
    int8_t move;
    uint8_t played_count;
} WideEntry;

typedef struct {
    unsigned char *table;
    uint64_t zeroed_at;        /* the generation before the first to use it since zeroed */
    uint64_t last;             /* the latest generation that used it */
} CachedTable;

typedef struct {
    PyObject_HEAD
    int n;
    int lead_rule;
    uint64_t dealt[MAX_SEATS];
    uint64_t up[52];
    uint64_t bound_up[52];  /* up[] for fact 3: the card in lieu (the Pope) a stretch alone */
    int8_t holder[52];
    int n_awards;
    uint64_t award_mask[MAX_AWARDS];
    int award_takers[MAX_AWARDS];
    int award_seat[MAX_AWARDS][MAX_SEATS];
    val_t award_amount[MAX_AWARDS][MAX_SEATS];  /* negative: paid to another seat's card */
    /* General mode: choices inside a run (Spin, Pope in lieu of a stop) or payments between
     * players; the facts of docs/solver.md that assume a forced run are off. */
    int general;
    int spin_slot;         /* -1: no Spin */
    int lieu_slot;         /* -1: no card in lieu of a stop */
    int lieu_after_top, lieu_continues;
    int plain_after_lieu;  /* once the card in lieu is played, the game is a forced-run one */
    int plain_after_spin;  /* once Spin is played (or if it is dead), likewise */
    int paying;            /* awards paid between players (negative amounts): fact 10 */
    uint64_t carry_two;    /* stops from which the card in lieu carries a run on two cards up */
    int carry_from, carry_to;  /* the stop below the Pope's missing card, and where its run goes */
    val_t game_stake;
    val_t per_card;        /* what each card left in hand pays the seat that goes out: the
                            * rule table's per_card_left */
    uint64_t exempt_bit;
    int exempt_slot;
    unsigned char *tt;     /* buckets of BUCKET_BYTES */
    uint64_t generation;   /* this Core's: a count over the process */
    uint64_t tt_gen;       /* its tag, in the top bits of every key it stores */
    CachedTable tt_held;   /* tt, with its span of generations (see tt_alloc) */
    int wide;              /* entries are WideEntry (values beyond the int16 range) */
    int ways;              /* entries per bucket */
    size_t entry_size;
    int tt_shift;          /* 64 - log2(number of buckets) */
    int tt_log2, tt_max_log2;
    uint64_t tt_used;      /* occupied entries; the table doubles past half full */
    long long nodes;
    /* per-search state */
    int goal, target, objective_id;
    int is_max[MAX_SEATS];
    int prune_blocks;
    val_t all_mine;
    val_t gain_all;        /* fact 10: the target's awards of positive amount, all taken */
    val_t exempt_mine;     /* the exempt card's (Pope's) award if the target holds it */
    int exempt_kept;       /* fact 3e: its holder may keep the exempt card to the end */
    int pope_bottom;       /* fact 3h: the exempt card is the bottom of its stretch */
    uint64_t theirs;
    uint64_t in_play;
    int isolating;         /* fact 5 holds for this search (settled) */
    uint64_t pay_cards;    /* fact 15: the cards of the awards the target pays for (paranoid) */
    uint64_t keep_apart;   /* fact 5: cards another seat may not be taken to play at once */
    int self_isolating;    /* fact 5b holds for this search: the target settles too */
    uint64_t self_keep;    /* fact 5b: the target's cards it is not taken to play at once */
    /* fill[i]: the slots linked to the slot 2^i above them inside one stretch (facts 3g, 3i) */
    uint64_t fill[4];
    /* each seat's awards (mask, amount), summed over its shares: what it has taken */
    int n_owned[MAX_SEATS];
    uint64_t owned_mask[MAX_SEATS][MAX_AWARDS];
    val_t owned_amount[MAX_SEATS][MAX_AWARDS];
    /* Move ordering: cut-offs per (objective, leader, lead), weighted; kept from one search of
     * an objective to the next on the same Core (the leads of a position, the MTD(f) passes). */
    int histories[32][MAX_SEATS][64];
    int (*history)[64];    /* the current objective's row */
    double deadline;
    int timed_out;
    int busy;              /* a search is running (set and read under the GIL) */
    long long gil_release_at;  /* the node count at which the search lets the GIL go */
    PyThreadState *gil_saved;  /* this thread's state once it has */
    int cancelled;         /* set by cancel() from another thread: read atomically */
} Core;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int cancelled(const Core *c) {
    return __atomic_load_n(&c->cancelled, __ATOMIC_RELAXED);
}

static inline int bit_index(uint64_t x) { return __builtin_ctzll(x); }
static inline int top_index(uint64_t x) { return 63 - __builtin_clzll(x); }
static inline int popcount(uint64_t x) { return __builtin_popcountll(x); }

/* The awards `seat` has taken once `played` is played. */
static inline val_t taken_by(const Core *c, uint64_t played, int seat) {
    val_t taken = 0;
    for (int i = 0; i < c->n_owned[seat]; i++)
        if (!(c->owned_mask[seat][i] & ~played)) taken += c->owned_amount[seat][i];
    return taken;
}

/* Fact 10 (docs/solver.md): the least the target's awards come to from `played` on: those
 * of positive amount taken now, and every payment to another seat's card, made or to come
 * (taken_by itself where no award is paid between players). */
static inline val_t taken_floor(const Core *c, uint64_t played) {
    const int t = c->target;
    val_t taken = 0;
    for (int i = 0; i < c->n_owned[t]; i++) {
        const val_t amount = c->owned_amount[t][i];
        if (amount < 0 || !(c->owned_mask[t][i] & ~played)) taken += amount;
    }
    return taken;
}

/* Fact 10: the most the target's awards and the Game come to from `played` on: every award
 * of positive amount and the Game, less only the payments already made. */
static inline val_t mine_ceiling(const Core *c, uint64_t played) {
    if (!c->paying) return c->all_mine;
    const int t = c->target;
    val_t most = c->game_stake + c->gain_all;
    for (int i = 0; i < c->n_owned[t]; i++)
        if (c->owned_amount[t][i] < 0 && !(c->owned_mask[t][i] & ~played))
            most += c->owned_amount[t][i];
    return most;
}

HOT static val_t payoff(const Core *c, uint64_t played, int winner, int seat) {
    val_t value = taken_by(c, played, seat);
    if (seat == winner) {
        value += c->game_stake;
        for (int o = 0; o < c->n; o++) {
            if (o == winner) continue;
            uint64_t left = c->dealt[o] & ~played;
            if (!(left & c->exempt_bit)) value += c->per_card * popcount(left);
        }
    } else {
        uint64_t left = c->dealt[seat] & ~played;
        if (!(left & c->exempt_bit)) value -= c->per_card * popcount(left);
    }
    return value;
}

static inline val_t terminal(const Core *c, uint64_t played, int winner) {
    if (c->goal == GOAL_FORCED_WIN) return winner == c->target;
    return payoff(c, played, winner, c->target);
}

static const uint64_t SUIT_BITS[4] = {
    0x1FFFULL, 0x1FFFULL << 13, 0x1FFFULL << 26, 0x1FFFULL << 39};

HOT static int gen_leads(const Core *c, uint64_t played, int leader, int *moves) {
    uint64_t held = c->dealt[leader] & ~played;
    int count = 0;
    if (c->lead_rule == LEAD_ANY) {
        while (held) {
            moves[count++] = bit_index(held);
            held &= held - 1;
        }
        return count;
    }
    int lows[4], n_lows = 0;
    for (int s = 0; s < 4; s++) {
        uint64_t part = held & SUIT_BITS[s];
        if (part) lows[n_lows++] = bit_index(part);
    }
    if (c->lead_rule == LEAD_LOWEST_OF_SUIT) {
        for (int i = 0; i < n_lows; i++) moves[count++] = lows[i];
        return count;
    }
    int bottom = 13;
    for (int i = 0; i < n_lows; i++)
        if (lows[i] % 13 < bottom) bottom = lows[i] % 13;
    for (int i = 0; i < n_lows; i++)
        if (lows[i] % 13 == bottom) moves[count++] = lows[i];
    return count;
}

/* Tables freed by finished searches, kept per size (a few of each small one, for searches
 * side by side on several threads): a batch solving deal after deal in one process reuses them
 * instead of page-faulting fresh memory every time.
 *
 * A reused table is not zeroed. Every Core takes the next generation (a count over the
 * process) and every key it stores carries that generation's tag in its top bits (a key proper
 * is below 2^KEY_BITS), so a search reads the entries of other generations as empty. A table
 * remembers when it was last zeroed and the latest generation that used it: its entries' tags
 * are those of the generations in between, all unlike a new one's while that span stays within
 * TT_TAGS; past it, the table is zeroed. Advice and the bots make a table for every sampled
 * deal, mostly small searches, for which zeroing cost more than the search. */
#define TT_CACHE_SIZES 40
#define TT_CACHE_WAYS 4
#define TT_CACHE_WAYS_UPTO 16  /* tables of up to 2^16 buckets (4 MiB) are kept 4 deep */
#define KEY_BITS 60
#define KEY_MASK ((1ULL << KEY_BITS) - 1)
#define TT_TAGS 15             /* tags 1 to 15 (0: a zeroed entry) */
static CachedTable tt_cache[TT_CACHE_SIZES][TT_CACHE_WAYS];
static uint64_t tt_generations;  /* generations handed out (under the lock) */
static PyThread_type_lock tt_cache_lock;  /* searches run without the GIL */

static int tt_size_index(size_t buckets) {
    int i = 0;
    while (i < TT_CACHE_SIZES - 1 && ((size_t)1 << i) < buckets) i++;
    return i;
}

static int tt_cache_ways(int size_index) {
    return size_index <= TT_CACHE_WAYS_UPTO ? TT_CACHE_WAYS : 1;
}

static uint64_t tt_next_generation(void) {
    PyThread_acquire_lock(tt_cache_lock, WAIT_LOCK);
    const uint64_t generation = ++tt_generations;
    PyThread_release_lock(tt_cache_lock);
    return generation;
}

static inline uint64_t tt_tag(uint64_t generation) {
    return (generation % TT_TAGS + 1) << KEY_BITS;
}

/* A table of `buckets` for `generation`, every entry of it empty to that generation (NULL:
 * no memory). A Core never takes back a table it gave up (its table only grows), so only
 * other generations' entries can be in it. */
static CachedTable tt_alloc(uint64_t generation, size_t buckets) {
    int i = tt_size_index(buckets);
    CachedTable got = {NULL, 0, 0};
    size_t bytes = buckets * BUCKET_BYTES;
    if (((size_t)1 << i) == buckets) {
        PyThread_acquire_lock(tt_cache_lock, WAIT_LOCK);
        for (int w = 0; w < tt_cache_ways(i) && !got.table; w++) {
            got = tt_cache[i][w];
            tt_cache[i][w].table = NULL;
        }
        PyThread_release_lock(tt_cache_lock);
    }
    if (got.last < generation) got.last = generation;
    if (!got.table || generation <= got.zeroed_at || got.last - got.zeroed_at > TT_TAGS) {
        /* A bucket on one cache line: one memory access per probe. */
        if (!got.table) got.table = aligned_alloc(BUCKET_BYTES, bytes);
        if (got.table) memset(got.table, 0, bytes);
        got.zeroed_at = generation - 1;
        got.last = generation;
    }
    return got;
}

static void tt_release(CachedTable table, size_t buckets) {
    if (!table.table) return;
    int i = tt_size_index(buckets);
    if (((size_t)1 << i) == buckets) {
        PyThread_acquire_lock(tt_cache_lock, WAIT_LOCK);
        for (int w = 0; w < tt_cache_ways(i) && table.table; w++) {
            if (tt_cache[i][w].table) continue;
            tt_cache[i][w] = table;
            table.table = NULL;
        }
        PyThread_release_lock(tt_cache_lock);
    }
    free(table.table);
}

/* A position's key (below 2^KEY_BITS: 52 cards, then leader and objective) with the Core's
 * generation tag on top. */
static inline uint64_t tt_key(const Core *c, uint64_t played, int leader) {
    return (((played << 8) | ((uint64_t)leader << 5) | (uint64_t)c->objective_id) + 1) |
           c->tt_gen;
}

/* The bucket of `key`: Fibonacci hashing on the top bits of the key proper (the generation
 * left out, so that a search visits the same buckets whatever the table's history). */
static inline unsigned char *tt_bucket(const Core *c, uint64_t key) {
    return c->tt +
           (size_t)(((key & KEY_MASK) * 0x9E3779B97F4A7C15ULL) >> c->tt_shift) * BUCKET_BYTES;
}

static inline unsigned char *tt_entry(const Core *c, unsigned char *bucket, int way) {
    return bucket + (size_t)way * c->entry_size;
}

static inline uint64_t entry_key(const unsigned char *e) { return ((const Entry *)e)->key; }

/* An entry stored by this search (not empty, nor left by an earlier generation). */
static inline int entry_live(const Core *c, const unsigned char *e) {
    return (entry_key(e) & ~KEY_MASK) == c->tt_gen;
}

static inline int entry_count(const Core *c, const unsigned char *e) {
    return c->wide ? ((const WideEntry *)e)->played_count : ((const Entry *)e)->played_count;
}

static inline void entry_read(const Core *c, const unsigned char *e, val_t *lower,
                              val_t *upper, int *move) {
    if (c->wide) {
        const WideEntry *w = (const WideEntry *)e;
        *lower = w->lower;
        *upper = w->upper;
        *move = w->move;
        return;
    }
    const Entry *n = (const Entry *)e;
    *lower = n->lower <= -NARROW_LIMIT ? -INF : n->lower;
    *upper = n->upper >= NARROW_LIMIT ? INF : n->upper;
    *move = n->move;
}

/* A narrow entry holds only what lies inside +-NARROW_LIMIT (the deal's values all do, or the
 * Core would be wide); anything beyond is weakened, never moved past the true value. */
static inline int16_t narrow_lower(val_t v) {
    return (int16_t)(v <= -NARROW_LIMIT ? -NARROW_LIMIT : v >= NARROW_LIMIT ? NARROW_LIMIT - 1 : v);
}

static inline int16_t narrow_upper(val_t v) {
    return (int16_t)(v >= NARROW_LIMIT ? NARROW_LIMIT : v <= -NARROW_LIMIT ? 1 - NARROW_LIMIT : v);
}

static inline void entry_write(const Core *c, unsigned char *e, uint64_t key, val_t lower,
                               val_t upper, int move, int count) {
    if (c->wide) {
        WideEntry *w = (WideEntry *)e;
        w->key = key;
        w->lower = lower;
        w->upper = upper;
        w->move = (int8_t)move;
        w->played_count = (uint8_t)count;
        return;
    }
    Entry *n = (Entry *)e;
    n->key = key;
    n->lower = narrow_lower(lower);
    n->upper = narrow_upper(upper);
    n->move = (int8_t)move;
    n->played_count = (uint8_t)count;
}

/* Looks `key` up: on a hit, its bounds (+-INF where unbounded) and best move, and 1. */
static inline int tt_lookup(const Core *c, uint64_t key, val_t *lower, val_t *upper, int *move) {
    unsigned char *bucket = tt_bucket(c, key);
    for (int i = 0; i < c->ways; i++) {
        const unsigned char *e = tt_entry(c, bucket, i);
        if (entry_key(e) == key) {
            entry_read(c, e, lower, upper, move);
            return 1;
        }
    }
    return 0;
}

/* The stored bounds of `key` narrow the window; true when they already decide the node
 * (its value in *cut). */
static inline int tt_probe(const Core *c, uint64_t key, val_t *lower, val_t *upper,
                           int *best_move, val_t *alpha, val_t *beta, val_t *cut) {
    if (!tt_lookup(c, key, lower, upper, best_move)) return 0;
    if (*lower >= *beta) { *cut = *lower; return 1; }
    if (*upper <= *alpha || *lower == *upper) { *cut = *upper; return 1; }
    if (*lower > *alpha) *alpha = *lower;
    if (*upper < *beta) *beta = *upper;
    return 0;
}

static void tt_store(Core *c, uint64_t key, val_t lower, val_t upper, int move, int count);

/* Double the table (up to its bound) and re-insert every entry. */
static void tt_grow(Core *c) {
    size_t old_buckets = (size_t)1 << c->tt_log2;
    CachedTable fresh = tt_alloc(c->generation, old_buckets * 2);
    if (!fresh.table) { c->tt_max_log2 = c->tt_log2; return; }  /* keep the old size */
    const CachedTable old = c->tt_held;
    c->tt_held = fresh;
    c->tt = fresh.table;
    c->tt_log2 += 1;
    c->tt_shift = 64 - c->tt_log2;
    c->tt_used = 0;
    for (size_t b = 0; b < old_buckets; b++) {
        for (int i = 0; i < c->ways; i++) {
            const unsigned char *e = tt_entry(c, old.table + b * BUCKET_BYTES, i);
            if (!entry_live(c, e)) continue;
            val_t lower, upper;
            int move;
            entry_read(c, e, &lower, &upper, &move);
            tt_store(c, entry_key(e), lower, upper, move, entry_count(c, e));
        }
    }
    tt_release(old, old_buckets);
}

/* Store bounds for `key`; `count` (cards played) ranks entries for replacement. */
static void tt_store(Core *c, uint64_t key, val_t lower, val_t upper, int move, int count) {
    unsigned char *bucket = tt_bucket(c, key);
    unsigned char *slot = NULL;
    for (int i = 0; i < c->ways; i++) {
        unsigned char *e = tt_entry(c, bucket, i);
        if (entry_key(e) == key || !entry_live(c, e)) { slot = e; break; }
    }
    if (slot != NULL && entry_key(slot) != key) {
        c->tt_used++;
    } else if (slot == NULL) {
        slot = bucket;
        for (int i = 1; i < c->ways; i++) {
            unsigned char *e = tt_entry(c, bucket, i);
            if (entry_count(c, e) > entry_count(c, slot)) slot = e;
        }
    }
    entry_write(c, slot, key, lower, upper, move, count);
    if (c->tt_log2 < c->tt_max_log2 &&
        c->tt_used * 2 > ((uint64_t)1 << c->tt_log2) * (uint64_t)c->ways)
        tt_grow(c);
}

/* Every slot at or below one of `open` in its stretch: a card of `held` outside it has only
 * its holder's cards above it (its run is its holder's own: facts 3g and 3i). */
static inline uint64_t at_or_below(const Core *c, uint64_t open) {
    open |= (open >> 1) & c->fill[0];
    open |= (open >> 2) & c->fill[1];
    open |= (open >> 4) & c->fill[2];
    open |= (open >> 8) & c->fill[3];
    return open;
}

/* Every slot at or above one of `open` in its stretch: the union of their up[]. */
static inline uint64_t at_or_above(const Core *c, uint64_t open) {
    open |= (open & c->fill[0]) << 1;
    open |= (open & c->fill[1]) << 2;
    open |= (open & c->fill[2]) << 4;
    open |= (open & c->fill[3]) << 8;
    return open;
}

/* The cards of `held` (a seat's unplayed cards) whose run is its own cards only, the Pope
 * kept apart: the unplayed cards above them in their stretch are all the seat's. */
static inline uint64_t own_runs(const Core *c, uint64_t played, uint64_t held) {
    return held & ~c->exempt_bit & ~at_or_below(c, c->in_play & ~played & ~held);
}

/* The longest block of consecutive cards of one suit in `held`: on lead, its holder can play
 * them all before anyone else can go out (the run climbs through them first). */
static inline int own_block(uint64_t held) {
    const uint64_t same_suit = ~((1ULL << 12) | (1ULL << 25) | (1ULL << 38) | (1ULL << 51));
    int length = 0;
    while (held) {
        length++;
        held &= (held >> 1) & same_suit;
    }
    return length;
}

/* Fact 12 (docs/solver.md): what the target pays for the others' awards (negative amounts)
 * not yet complete whose unplayed cards all lie in `span`. */
static inline val_t forced_payments(const Core *c, uint64_t played, uint64_t span) {
    const int t = c->target;
    val_t pay = 0;
    for (int i = 0; i < c->n_owned[t]; i++) {
        const uint64_t open = c->owned_mask[t][i] & ~played;
        if (c->owned_amount[t][i] < 0 && open && !(open & ~span)) pay -= c->owned_amount[t][i];
    }
    return pay;
}

/* Facts 13 and 14 (docs/solver.md): with Spin unplayed, the most of `counted` in `span` (the
 * stretch of a seat's cards `mine`, from its lowest card up) that a run stopped by Spin can
 * leave unplayed when that seat goes out, besides those fact 3 leaves in the stretch it goes
 * out in: those between a card s of Spin's holder and the seat's next card above s (or the
 * top), Spin itself not among them (fact 21: under ace high it may top the stretch, and it is
 * played on s). Into *pay, if asked (fact 13: the target's span, the others' cards counted): that
 * many counters and the payments for the others' awards forced in the span (fact 12) with a
 * card among them. */
static inline int spin_gap(const Core *c, uint64_t played, uint64_t span, uint64_t mine,
                           uint64_t counted, val_t *pay) {
    uint64_t stops = c->dealt[c->holder[c->spin_slot]] & ~played & span & ~(1ULL << c->spin_slot);
    int most = 0;
    if (pay) *pay = 0;
    while (stops) {
        const int s = bit_index(stops);
        stops &= stops - 1;
        const uint64_t above = c->bound_up[s] ^ (1ULL << s);
        const uint64_t next = mine & above;
        uint64_t gap = next ? above & ~c->bound_up[bit_index(next)] : above;
        gap &= ~(1ULL << c->spin_slot);  /* fact 21: Spin, played on s, is not left unplayed */
        const int cards = popcount(gap & counted);
        if (cards > most) most = cards;
        if (!pay) continue;
        val_t counters = c->per_card * cards;
        if (c->paying)
            counters += forced_payments(c, played, span) - forced_payments(c, played, span & ~gap);
        if (counters > *pay) *pay = counters;
    }
    return most;
}

/* Fact 16 (docs/solver.md): with payments between players (no card in lieu, no exempt card),
 * whether the target can never go out from `played`, and then the cards it surely still holds
 * when the deal ends (*kept). Locked out: no other seat's unplayed card lies below one of the
 * target's in its stretch, so no run but its own reaches its cards and it never gets the lead
 * back once it has lost it. Off lead it then never plays again; on lead it can clear in this
 * last tenure every stretch its cards top, but of those where another seat's cards lie above
 * its own, only one (the lead that ends its tenure) and one more with its own unplayed Spin. */
static inline int never_out(const Core *c, uint64_t played, int leader, int *kept) {
    const int t = c->target;
    const uint64_t held = c->dealt[t] & ~played;
    const uint64_t others = c->in_play & ~played & ~held;
    if (held & at_or_above(c, others)) return 0;  /* a run of another seat's can reach it */
    if (leader != t) {
        *kept = popcount(held);
        return 1;
    }
    const int spin = c->spin_slot >= 0 && c->holder[c->spin_slot] == t &&
                     !(played >> c->spin_slot & 1);
    int sizes[52], n_covered = 0;
    uint64_t rest = held;
    while (rest) {
        const uint64_t span = c->up[bit_index(rest)];
        rest &= ~span;
        if (span & others) sizes[n_covered++] = popcount(span & held);
    }
    const int left = n_covered - 1 - spin;
    if (left <= 0) return 0;
    /* the `left` smallest blocks stay in its hand */
    for (int i = 1; i < n_covered; i++)
        for (int j = i; j > 0 && sizes[j - 1] > sizes[j]; j--) {
            const int s = sizes[j]; sizes[j] = sizes[j - 1]; sizes[j - 1] = s;
        }
    *kept = 0;
    for (int i = 0; i < left; i++) *kept += sizes[i];
    return 1;
}

/* Fact 16: what the target pays for the awards of seat `w` (negative amounts) that complete
 * when `w` has played all its cards: those whose unplayed cards are all `w`'s. */
static inline val_t paid_when_out(const Core *c, uint64_t played, int w) {
    const int t = c->target;
    val_t pay = 0;
    for (int i = 0; i < c->n_owned[t]; i++) {
        const uint64_t open = c->owned_mask[t][i] & ~played;
        if (c->owned_amount[t][i] < 0 && open && !(open & ~c->dealt[w]))
            pay -= c->owned_amount[t][i];
    }
    return pay;
}

/* Fact 19 (docs/solver.md): Spin is a stretch of its own (ace low, the deuce out of the pack):
 * played only when its holder chooses, and in no span of fact 3. */
static inline int spin_alone(const Core *c) {
    const int s = c->spin_slot;
    return c->up[s] == 1ULL << s && (s % 13 == 0 || !(c->in_play >> (s - 1) & 1));
}

#define SPIN_OPEN 3
/* Fact 3 (docs/solver.md): an upper bound on the target's counters from this position;
 * `forced` SPIN_OPEN: Spin is unplayed (facts 11 and 13). */
HOT static val_t target_bound(const Core *c, uint64_t played, int leader, int forced) {
    const int t = c->target;
    const uint64_t held = c->dealt[t] & ~played;
    const uint64_t open_cards = c->theirs & ~played;
    int forced_total = 0, saving_max = 0, gap_max = 0;
    uint64_t rest = held, cover = 0;
    /* fact 12: with payments between players, the counters the target pays for the others'
     * awards whose cards are forced in a span, their total and the most a span saves */
    val_t pay_total = 0, pay_saving = 0, pay_gap = 0;
    while (rest) {
        uint64_t span = c->bound_up[bit_index(rest)];
        cover |= span;
        uint64_t group = held & span;
        rest &= ~span;
        int whole = popcount(span & open_cards);
        int cheapest = whole;
        forced_total += whole;
        uint64_t cards = group;
        while (cards) {
            int k = bit_index(cards);
            cards &= cards - 1;
            uint64_t below = span ^ c->bound_up[k] ^ (1ULL << k);
            int cost = popcount(below & open_cards);
            if (cards) cost += popcount(c->bound_up[bit_index(cards)] & open_cards);
            if (cost < cheapest) cheapest = cost;
        }
        if (whole - cheapest > saving_max) saving_max = whole - cheapest;
        if (c->paying) {
            const val_t pay = forced_payments(c, played, span);
            pay_total += pay;
            if (c->per_card * (whole - cheapest) + pay > pay_saving)
                pay_saving = c->per_card * (whole - cheapest) + pay;
        }
        if (forced == SPIN_OPEN) {  /* fact 13: what Spin can save in this stretch */
            val_t pay;
            const int gap = spin_gap(c, played, span, held, open_cards, &pay);
            if (gap > gap_max) gap_max = gap;
            if (pay > pay_gap) pay_gap = pay;
        }
    }
    /* the others' cards the target is paid for; facts 11 and 13: Spin unplayed, one run may
     * yet be stopped short, leaving one stretch's gap unplayed */
    int paid_for = saving_max - forced_total + gap_max;
    for (int o = 0; o < c->n; o++)
        if (o != t) paid_for += popcount(c->dealt[o] & ~played);
    /* Fact 3b (docs/solver.md): another seat on lead plays a card of its own now; if none
     * of its cards lies in the spans counted above, that is one more card not paid for. */
    int led_outside = leader != t && !(c->dealt[leader] & ~played & cover);
    paid_for -= led_outside;
    /* Fact 3c: another seat's unplayed Pope outside those spans is either kept (its holder
     * then pays nothing, the Pope included) or played: one more card either way, unless it is
     * the card just charged for the seat on lead. */
    const uint64_t pope = c->exempt_bit & ~played & ~cover;
    const int x = c->holder[c->exempt_slot];
    if (pope && x != t) {
        int keep = 1, lost = 1;
        uint64_t stretch = 0;
        if (forced && c->pope_bottom) {
            /* Fact 3h: kept, its holder's every card outside the spans is played or exempt;
             * played, it was led from the bottom of its stretch, and the run climbed through
             * every card of the stretch below the spans. */
            keep = popcount(c->dealt[x] & ~played & ~cover);
            stretch = c->up[c->exempt_slot] & ~cover & open_cards;
            lost = popcount(stretch);
        }
        int least = keep < lost ? keep : lost;
        if (led_outside && leader == x) least -= 1;  /* its lead is one of those cards */
        else if (led_outside && (c->dealt[leader] & stretch))  /* its lead may be in the stretch */
            least = (keep + 1 < lost ? keep + 1 : lost) - 1;
        paid_for -= least;
    }
    const val_t mine = mine_ceiling(c, played);  /* fact 10 */
    val_t bound = mine + c->per_card * paid_for;
    if (c->paying) {
        /* fact 12: the payments forced in the spans, but those of the span that saves most
         * (and with Spin unplayed, those of the gap it may leave unplayed: fact 13); never
         * below what the target can make without going out (a card left, no payment to come) */
        bound += pay_saving - c->per_card * saving_max - pay_total;
        if (forced == SPIN_OPEN) bound += pay_gap - c->per_card * gap_max;
        /* Fact 19: another seat's Spin leaves a gap only if it is played, and then the
         * target pays for it: the gap counts only where it saves more than that payment */
        if (forced == SPIN_OPEN && c->holder[c->spin_slot] != t && spin_alone(c)) {
            const val_t spin_paid = forced_payments(c, played, 1ULL << c->spin_slot);
            bound -= pay_gap < spin_paid ? pay_gap : spin_paid;
        }
        if (bound < mine - c->game_stake - c->per_card) bound = mine - c->game_stake - c->per_card;
    }
    /* never below what the target can make without going out (its awards) */
    if (pope && x != t && bound < mine - c->game_stake)
        bound = mine - c->game_stake;
    int kept;
    if (c->paying && never_out(c, played, leader, &kept)) {
        /* Fact 16: it never goes out: no Game, no card of the others', `kept` cards paid
         * for, and the payments of the seat that goes out, all of whose cards are played */
        val_t least = INF;
        for (int w = 0; w < c->n; w++)
            if (w != t) {
                const val_t pay = paid_when_out(c, played, w);
                if (pay < least) least = pay;
            }
        const val_t out = mine - c->game_stake - c->per_card * kept - least;
        if (out < bound) bound = out;
    }
    return bound;
}

/* Fact 3f (docs/solver.md): the fewest of the target's cards `held` that are played before
 * another seat can go out, if at least `need` (the floor wants that many), else 0: the seats
 * are not all tried once one stays under it. Before seat x goes out, every unplayed card
 * above its lowest card in a stretch is played, but in the stretch where it goes out on a
 * card k: there the cards from its lowest up to k, and all from its next card above k to the
 * top (fact 3's argument, for x). The target is not charged for its cards among them.
 * Fact 14, `spin_open` (Spin unplayed, its holder playing against the target): one run may
 * be stopped short, leaving the target's cards of one of x's gaps (fact 13) unplayed too.
 * Fact 3m, `off_lead` (another seat on lead, lead=any): if the target holds a card no other
 * seat can run into, then for each stretch of x's topped by a target card but the one x goes
 * out in, the first run there stopped on the target's card, and the target led that free
 * card then: one card more. */
HOT static int race_sure(const Core *c, uint64_t played, uint64_t held, int need, int off_lead,
                         const uint64_t *ups, int spin_open) {
    const uint64_t open = c->in_play & ~played;
    /* fact 3m: the target's free cards (none of another seat's at or below them in their
     * stretch) and, if it has one, its cards that top what is left of their stretch */
    const uint64_t others = open & ~c->dealt[c->target];
    const int free_card = off_lead && c->lead_rule == LEAD_ANY &&
                          (held & ~at_or_above(c, others)) != 0;
    const uint64_t stops = free_card ? held & ~((open >> 1) & c->fill[0]) : 0;
    int least = popcount(held);
    for (int x = 0; x < c->n; x++) {  /* a seat whose every stretch holds too few is enough */
        if (x == c->target) continue;
        /* (fact 3m's card more keeps a seat's count within this: a topped stretch it goes
         * out in saves at least the target's top card) */
        if (popcount(at_or_above(c, c->dealt[x] & ~played) & held) < need) return 0;
    }
    for (int x = 0; x < c->n && least >= need; x++) {
        if (x == c->target) continue;
        const uint64_t theirs = c->dealt[x] & ~played;
        int total = 0, saving = 0;  /* saving: the most one stretch saves (any stretch) */
        /* fact 3m: the topped stretches, the saving of one, the most another saves */
        int topped = 0, saving_topped = 0, saving_rest = 0, gap_max = 0;
        uint64_t rest = theirs;
        while (rest) {
            const uint64_t span = ups[bit_index(rest)];
            rest &= ~span;
            if (spin_open) {  /* fact 14 */
                const int gap = spin_gap(c, played, span, theirs, held, NULL);
                if (gap > gap_max) gap_max = gap;
            }
            const int whole = popcount(span & held);
            const int is_topped = (span & stops) != 0;
            topped += is_topped;
            total += whole;
            if (!is_topped && whole <= saving_rest) continue;  /* it cannot save more */
            int cheapest = whole;
            uint64_t cards = theirs & span;
            while (cards) {
                const int k = bit_index(cards);
                cards &= cards - 1;
                int cost = popcount((span ^ ups[k] ^ (1ULL << k)) & held);
                if (cards) cost += popcount(ups[bit_index(cards)] & held);
                if (cost < cheapest) cheapest = cost;
            }
            if (whole - cheapest > saving) saving = whole - cheapest;
            if (is_topped) saving_topped = whole - cheapest;
            else if (whole - cheapest > saving_rest) saving_rest = whole - cheapest;
        }
        /* fact 3m: one card more wherever x goes out, but in its one topped stretch */
        int sure = total - saving;
        if (topped >= 2) sure = total - saving + 1;
        else if (topped == 1) {
            sure = total - saving_topped;
            if (total - saving_rest + 1 < sure) sure = total - saving_rest + 1;
        }
        sure -= gap_max;  /* fact 14 */
        if (sure < least) least = sure;
    }
    return least >= need ? least : 0;
}

/* The least the target can end with, before the awards it has taken, when `sure` of its
 * cards `held` are played before the deal ends: it pays the rest when another seat goes out;
 * holding the Pope (exempt) it pays nothing, or once the Pope is played it takes the Pope's
 * stake and pays the rest (fact 3c), or it keeps the Pope to the end (fact 3e). */
static inline val_t pope_floor(const Core *c, uint64_t held, int sure) {
    if (!(held & c->exempt_bit)) return c->per_card * (sure - popcount(held));
    val_t after_pope = c->exempt_mine + c->per_card * ((sure > 1 ? sure : 1) - popcount(held));
    return after_pope < 0 && !c->exempt_kept ? after_pope : 0;
}

/* The least whole q with q * k >= a, for k > 0 (C's division truncates towards zero: the
 * ceiling for a <= 0). */
static inline val_t ceil_div(val_t a, val_t k) { return a > 0 ? (a + k - 1) / k : a / k; }

/* The fewest of the target's cards played (of those `held_now`) for which pope_floor reaches
 * `want` (at most 0: the awards already taken are at least beta). */
static inline int race_needed(const Core *c, uint64_t held_now, val_t want) {
    const int n = popcount(held_now);
    const val_t k = c->per_card;
    if (k <= 0) return 0;  /* cards left pay nothing: the floor needs none played */
    if (want < -64 * k) want = -64 * k;  /* any want this low needs none */
    if (!(held_now & c->exempt_bit)) return (int)(n + ceil_div(want, k));  /* k (sure - n) >= want */
    const val_t least = n + ceil_div(want - c->exempt_mine, k);  /* max(sure, 1) >= least */
    return least > 1 ? (int)least : 0;
}

/* The seats whose cards left lie in one stretch, into `seats` (their number): only they can
 * go out in one run. */
static inline int seats_near_out(const Core *c, uint64_t played, int *seats) {
    int n = 0;
    for (int s = 0; s < c->n; s++) {
        const uint64_t left = c->dealt[s] & ~played;
        if (left && !(left & ~c->up[bit_index(left)])) seats[n++] = s;
    }
    return n;
}

/* The seat of `seats` that goes out first in `run` (the unplayed cards from a lead up, after
 * `played`), or -1; `*reached` is the part of the run played by then (all of it for none). */
static inline int first_out(const Core *c, uint64_t played, uint64_t run, const int *seats,
                            int n_seats, uint64_t *reached) {
    const uint64_t after = played | run;
    int winner = -1, last = 0;
    for (int j = 0; j < n_seats; j++) {
        const int s = seats[j];
        if (!(c->dealt[s] & ~after)) {
            const int seat_last = top_index(c->dealt[s] & run) + 1;
            if (winner < 0 || seat_last < last) { winner = s; last = seat_last; }
        }
    }
    *reached = winner < 0 || last >= 64 ? run : run & ((1ULL << last) - 1);
    return winner;
}

/* Fact 3k (docs/solver.md): the target on lead (lead=any, runs forced), its own runs played
 * (`played`, `n_own` cards), leads one more card k of `held`: it takes the awards of its cards
 * in k's run and pays at most its cards left (the Pope as in pope_floor), or, where someone goes
 * out in that run, that ending's payoff. Each such lead is a floor: the best of them, from
 * `floor` up, returned as soon as one reaches `beta`. */
HOT static val_t lead_floor(const Core *c, uint64_t played, uint64_t held_now, uint64_t held,
                            int n_own, val_t floor, val_t beta) {
    const int t = c->target;
    /* The leads tried: its lowest card in each stretch (the longest run there), and with the
     * Pope one of them its next card up too (a run that leaves it the exemption). */
    uint64_t cards = 0, rest = held;
    while (rest) {
        const int k = bit_index(rest);
        cards |= 1ULL << k;
        rest &= ~c->up[k];
    }
    if (cards & c->exempt_bit) {
        const uint64_t above = held & c->up[c->exempt_slot] & ~c->exempt_bit;
        cards |= above & -above;
    }
    int can_out[MAX_SEATS];
    const int n_can_out = seats_near_out(c, played, can_out);
    while (cards) {
        const int k = bit_index(cards);
        cards &= cards - 1;
        const uint64_t run = c->up[k] & ~played;
        const uint64_t after = played | run;
        uint64_t reached;
        const int winner = first_out(c, played, run, can_out, n_can_out, &reached);
        val_t value;
        if (winner >= 0) {
            value = payoff(c, played | reached, winner, t);
        } else {
            const int sure = n_own + popcount(run & held);
            const int pope_led = (run & held & c->exempt_bit) != 0;  /* then not exempt */
            value = taken_floor(c, after) +
                    (pope_led ? c->per_card * (sure - popcount(held_now))
                              : pope_floor(c, held_now, sure));
        }
        if (value > floor) {
            floor = value;
            if (floor >= beta) break;
        }
    }
    return floor;
}

/* The least the target can end with (facts 3c-3g): it pays its cards when another seat goes
 * out, but on lead it first plays the card it leads, or under lead=any a whole block of its
 * consecutive cards (fact 3d), before that its own runs (fact 3g), and the others' race to go
 * out plays some of them (fact 3f, used only where it could reach `beta`: the floor is at
 * most the awards taken; -INF: not tried). Facts 3f and 3g need `forced` runs: not in the
 * general mode, where the Pope in lieu can take the lead from a run's stop. `forced`
 * RACE_IN_LIEU (the general mode with the Pope in lieu, fact 8): fact 3f alone, the Pope a
 * stretch of its own for the race and fact 3m left out. SPIN_OPEN (Spin unplayed, its holder
 * against the target: fact 11): fact 3f with the gap Spin may leave (fact 14), 3m left out. */
#define RACE_IN_LIEU 2
HOT static val_t target_floor(const Core *c, uint64_t played, int leader, int forced_mode,
                              val_t beta) {
    const int forced = forced_mode == 1;
    const int t = c->target;
    const uint64_t held_now = c->dealt[t] & ~played;
    uint64_t held = held_now;
    /* fact 11: with Spin unplayed and its holder another seat, nobody can stop the target's
     * own runs or its block (Spin is played only on its holder's card) */
    const int own_first = (forced || forced_mode == SPIN_OPEN) && leader == t &&
                          c->lead_rule == LEAD_ANY;
    int sure = leader != t || own_first ? 0 : c->lead_rule == LEAD_ANY ? own_block(held) : 1;
    if (own_first) {
        /* Fact 3g: on lead, the target may first lead each of its cards whose run is its own
         * cards only (to the top of the unplayed part: it keeps the lead after each), then
         * the bottom card of its longest block (fact 3d). */
        const uint64_t own = own_runs(c, played, held_now);  /* the Pope kept apart: fact
                                                                * 3c's floor counts its stake */
        played |= own;
        held &= ~own;
        sure = popcount(own) + own_block(held);
        /* Fact 3i: all its cards so played, it goes out now: at least that ending's payoff. */
        if (sure == popcount(held_now)) return payoff(c, played | held, t, t);
    }
    const val_t taken = taken_floor(c, played);  /* fact 10 */
    val_t floor = pope_floor(c, held_now, sure) + taken;
    if ((forced || forced_mode == RACE_IN_LIEU || forced_mode == SPIN_OPEN) && beta > -INF &&
        floor < beta && taken >= beta &&
        !((held_now & c->exempt_bit) && c->exempt_kept)) {
        /* fact 3f, from the position after those own runs, where it can reach beta */
        const int own = popcount(held_now & ~held);
        const int need = race_needed(c, held_now, beta - taken) - own;
        if (need <= popcount(held)) {
            const int raced = own + race_sure(c, played, held, need > 0 ? need : 0,
                                              forced && leader != t,
                                              forced ? c->up : c->bound_up,
                                              forced_mode == SPIN_OPEN);
            if (raced > sure) floor = pope_floor(c, held_now, raced) + taken;
        }
    }
    if (forced && own_first && floor < beta)  /* fact 3k */
        floor = lead_floor(c, played, held_now, held, popcount(held_now & ~held), floor, beta);
    return floor;
}

/* Fact 3i: whether `seat` on lead (under lead=any, runs forced) can play all its cards
 * before anyone else plays one: its own runs (fact 3g), then one block of what is left. */
HOT static int goes_out_now(const Core *c, uint64_t played, int seat) {
    const uint64_t held = c->dealt[seat] & ~played;
    const uint64_t left = held & ~own_runs(c, played, held);
    return own_block(left) == popcount(left);
}

/* Fact 3l (docs/solver.md): whether the target on lead (lead=any, runs forced) can go out
 * within two leads whatever the others do: its own runs played, it leads a card whose run
 * takes it out before anyone else, or stops on its own card, after which it goes out at once
 * (fact 3i). */
HOT static int out_in_two(const Core *c, uint64_t played) {
    const int t = c->target;
    const uint64_t held_now = c->dealt[t] & ~played;
    const uint64_t own = own_runs(c, played, held_now);
    played |= own;
    const uint64_t held = held_now & ~own;
    int can_out[MAX_SEATS];
    const int n_can_out = seats_near_out(c, played, can_out);
    uint64_t cards = held;
    while (cards) {
        const int k = bit_index(cards);
        cards &= cards - 1;
        const uint64_t run = c->up[k] & ~played;
        const uint64_t after = played | run;
        uint64_t reached;
        const int winner = first_out(c, played, run, can_out, n_can_out, &reached);
        if (winner >= 0) {
            if (winner == t) return 1;
            continue;
        }
        const int stop_mine = c->holder[top_index(run)] == t;
        if (stop_mine && goes_out_now(c, after, t)) return 1;
    }
    return 0;
}

/* Fact 5 (docs/solver.md): the cards of another seat `x` on lead (lead=any, runs forced)
 * whose stretch's unplayed cards are all its own, none kept apart at or above them (leading
 * one plays all above it): nobody else can ever play into them, and playing them at once is
 * as good for the others as keeping them. */
static inline uint64_t isolated_cards(const Core *c, uint64_t played, int x, uint64_t keep) {
    const uint64_t held = c->dealt[x] & ~played;
    const uint64_t others = c->in_play & ~played & ~held;
    return held & ~at_or_above(c, others) & ~at_or_below(c, others | (held & keep));
}

/* The position a search takes `played` for: the seat on lead has played its isolated cards
 * first (fact 5 for another seat, with payments between players where no other seat holds a
 * card the target pays for: fact 15; fact 5b for the target), the cards of `keep` kept
 * besides those each fact keeps apart. */
static inline uint64_t settled_keeping(const Core *c, uint64_t played, int leader,
                                       uint64_t keep) {
    if (leader != c->target)
        return c->isolating && !(c->pay_cards & ~played & ~c->dealt[leader])
               ? played | isolated_cards(c, played, leader, c->keep_apart | keep) : played;
    return c->self_isolating ? played | isolated_cards(c, played, leader, c->self_keep | keep)
                             : played;
}

static inline uint64_t settled(const Core *c, uint64_t played, int leader) {
    return settled_keeping(c, played, leader, 0);
}

/* Fact 18 (docs/solver.md): with Spin unplayed, the seat on lead has led its isolated cards
 * (facts 5, 5b and 15), Spin kept: their runs hold no other seat's card, so no choice but its
 * own Spin, which it may decline; Spin itself it keeps to stop a run later. */
static inline uint64_t settled_before_spin(const Core *c, uint64_t played, int leader) {
    return settled_keeping(c, played, leader, 1ULL << c->spin_slot);
}

#define SUIT_TOPS ((1ULL << 12) | (1ULL << 25) | (1ULL << 38) | (1ULL << 51))

/* The isolated cards `isolated` that no run the card in lieu carries on (run-continues) can
 * reach: none at or above a card a carried run may start on (fact 9's exclusion; all of them
 * under the other readings, where no run is carried on). */
static inline uint64_t beyond_carries(const Core *c, uint64_t played, uint64_t isolated) {
    const uint64_t open = c->in_play & ~played;
    uint64_t reached = (open & c->carry_two) << 2;
    if (c->carry_from >= 0 && (open >> c->carry_from & 1)) reached |= 1ULL << c->carry_to;
    return isolated & ~at_or_above(c, isolated & reached);
}

/* Fact 9 (docs/solver.md): with the Pope in lieu unplayed, the seat on lead has led its
 * isolated cards (facts 5 and 5b), the Pope and (but for the Pope's holder himself, who leads
 * after such a run as after his own) those a run carried on by the Pope could reach kept.
 * Against the Pope's holder, only those whose run climbs to an unplayed King (a stop that is
 * no choice: not under pope-leads-after-king); on his side, all but its lowest card that
 * makes a stop the Pope may be played at, and none below a stop the Pope carries on (for the
 * holder himself, on to a card not among his isolated ones). */
static inline uint64_t settled_lieu(const Core *c, uint64_t played, int leader) {
    if (!c->plain_after_lieu) return played;
    const uint64_t isolated = settled(c, played, leader) & ~played & ~(1ULL << c->lieu_slot);
    if (!isolated) return played;
    const uint64_t open = c->in_play & ~played;
    const int own = leader == c->holder[c->lieu_slot];  /* the Pope's holder himself */
    uint64_t runs = own ? isolated : beyond_carries(c, played, isolated);
    if ((leader == c->target) != c->is_max[c->holder[c->lieu_slot]])
        return c->lieu_after_top ? played : played | (runs & at_or_below(c, runs & SUIT_TOPS));
    uint64_t carrying = isolated & c->carry_two & (open >> 2);
    if (c->carry_from >= 0 && (isolated >> c->carry_from & 1) && (open >> c->carry_to & 1))
        carrying |= 1ULL << c->carry_from;
    if (own) {  /* a run he carries on into his own isolated cards has him lead after it */
        carrying &= ~(isolated >> 2);
        if (c->carry_from >= 0 && (isolated >> c->carry_to & 1))
            carrying &= ~(1ULL << c->carry_from);
    }
    runs &= ~at_or_below(c, carrying);
    const uint64_t makers = c->lieu_after_top ? runs : runs & ~SUIT_TOPS;
    return played | (runs & ~(makers & (0 - makers)));
}

/* Fact 3 (docs/solver.md): bounds on the target's counters narrow the window; true when one
 * of them already decides the node (its value in *cut). `forced`: runs are forced (facts 3f
 * and 3g hold: not in the general mode); `floor_forced`: the floor may take them as forced
 * (1, fact 7: in the general mode where the holder of the card in lieu maximises), or only
 * fact 3f's race with the card in lieu a stretch of its own (RACE_IN_LIEU, fact 8). */
HOT static int target_bounds(Core *c, uint64_t played, int leader, val_t *alpha, val_t *beta,
                             val_t *cut, int forced, int floor_forced) {
    const val_t floor = target_floor(c, played, leader, floor_forced, *beta);
    if (floor >= *beta) { *cut = floor; return 1; }
    /* The guaranteed value's searches leave fact 3's bound out: there it almost never cuts
     * (the others hold the target below any window the bound could refute long before), and
     * it cost a tenth of the instructions (docs/solver.md, "Search order and the driver"). */
    if (c->goal == GOAL_GUARANTEED) {
        if (floor > *alpha) *alpha = floor;
        return 0;
    }
    const val_t bound = target_bound(c, played, leader, forced);
    if (bound <= *alpha) { *cut = bound; return 1; }
    if (bound < *beta) *beta = bound;
    if (floor > *alpha) *alpha = floor;
    return 0;
}

/* Fold one lead's score into a node's best lead and window; true for a cut-off (the score
 * moved the window and closed it; a node entered with a closed window still tries every lead
 * until one scores past it, so that what it stores stays a true bound). */
static inline int take_score(int maximising, val_t score, int lead, val_t *best, int *chosen,
                             val_t *alpha, val_t *beta) {
    if (maximising ? score <= *best : score >= *best) return 0;
    *best = score;
    *chosen = lead;
    if (maximising ? score <= *alpha : score >= *beta) return 0;
    if (maximising) *alpha = score; else *beta = score;
    return *alpha >= *beta;
}

/* One more node; true once the search must stop (time out, or cancelled from another
 * thread: checked every 4,096 nodes). The GIL is let go at the GIL_NODES-th node of a call. */
static inline int count_node(Core *c) {
    c->nodes++;
    if (c->nodes == c->gil_release_at) c->gil_saved = PyEval_SaveThread();
    if ((c->nodes & 4095) == 0 &&
        (cancelled(c) || (c->deadline > 0 && now_seconds() > c->deadline))) {
        c->timed_out = 1;
    }
    return c->timed_out;
}

/* A node's result: the cut-off lead's history credit, and its fail-soft bounds stored (at or
 * below the window an upper bound, at or above a lower one, else exact). */
static inline void store_node(Core *c, uint64_t key, uint64_t played, int leader,
                              int maximising, val_t best, int chosen, val_t window_low,
                              val_t window_high, val_t lower, val_t upper) {
    if (chosen >= 0 && (maximising ? best >= window_high : best <= window_low)) {
        const int left = popcount(~played & c->in_play);
        if ((c->history[leader][chosen] += left * left) > (1 << 30))  /* no overflow */
            for (int k = 0; k < 64; k++) c->history[leader][k] /= 2;
    }
    if (best <= window_low) { if (best < upper) upper = best; }
    else if (best >= window_high) { if (best > lower) lower = best; }
    else { lower = upper = best; }
    tt_store(c, key, lower, upper, chosen, popcount(played));
}

/* Fact 3j (docs/solver.md): another seat on lead can go out at once (goes_out_now); that
 * ending bounds the value from above if it plays against the target, from below if for it.
 * True when it already decides the node (its value in *cut). */
static inline int other_out_bounds(const Core *c, uint64_t played, int leader, val_t *alpha,
                                   val_t *beta, val_t *cut) {
    const val_t now = terminal(c, played | c->dealt[leader], leader);
    if (c->is_max[leader] ? now >= *beta : now <= *alpha) { *cut = now; return 1; }
    if (c->is_max[leader] && now > *alpha) *alpha = now;
    if (!c->is_max[leader] && now < *beta) *beta = now;
    return 0;
}

HOT static val_t search(Core *c, uint64_t played, int leader, val_t alpha, val_t beta) {
    played = settled(c, played, leader);  /* facts 5 and 5b */
    if (!(c->dealt[leader] & ~played)) return terminal(c, played, leader);
    if (count_node(c)) return 0;
    uint64_t key = tt_key(c, played, leader);
    val_t lower = -INF, upper = INF, cut;
    int best_move = -1;
    if (tt_probe(c, key, &lower, &upper, &best_move, &alpha, &beta, &cut)) return cut;
    if (c->goal != GOAL_FORCED_WIN) {
        if (target_bounds(c, played, leader, &alpha, &beta, &cut, 1, 1)) return cut;
    } else if (leader == c->target && c->lead_rule == LEAD_ANY &&
               (goes_out_now(c, played, leader) || out_in_two(c, played))) {
        return 1;  /* facts 3i and 3l */
    }
    if (leader != c->target && c->lead_rule == LEAD_ANY && goes_out_now(c, played, leader) &&
        other_out_bounds(c, played, leader, &alpha, &beta, &cut))
        return cut;  /* fact 3j */
    const val_t window_low = alpha, window_high = beta;
    int moves[52];
    int n_moves = gen_leads(c, played, leader, moves);
    const int maximising = c->is_max[leader];
    const uint64_t own = c->dealt[leader];
    val_t best = maximising ? -INF : INF;
    int chosen = -1;
    /* First pass: leads that end the deal are scored at once (they cost no search and often
     * cut the node off); the others are ordered for the second pass: the table's best move
     * first, then by the history of leads that cut a node off before. */
    int order[52], keys[52], n_order = 0;
    uint64_t child_key[52];  /* by lead: the child's table key, prefetched, then looked up */
    int can_out[MAX_SEATS];
    const int n_can_out = seats_near_out(c, played, can_out);
    for (int i = 0; i < n_moves; i++) {
        const int lead = moves[i];
        const uint64_t run = c->up[lead] & ~played;
        if (c->prune_blocks && !(run & ~own) && (run & (run - 1))) continue;  /* Fact 4 */
        const uint64_t after = played | run;
        uint64_t reached;
        const int winner = first_out(c, played, run, can_out, n_can_out, &reached);
        if (winner < 0) {
            const int next = c->holder[top_index(run)];
            if (next == c->target && !(maximising && c->goal == GOAL_BEST_CASE)) {
                /* A child where the target leads, decided by its floor (facts 3c-3j, or fact
                 * 3i for the forced win) without a search: at a node of the others it cannot
                 * cut the node off, at the target's it does. */
                const val_t f = c->goal == GOAL_FORCED_WIN
                    ? (c->lead_rule == LEAD_ANY && (goes_out_now(c, after, next) ||
                                                    out_in_two(c, after)) ? 1 : -INF)
                    : target_floor(c, after, next, 1, beta);
                if (f >= beta) {
                    if (take_score(maximising, f, lead, &best, &chosen, &alpha, &beta)) break;
                    continue;
                }
            }
            /* the child's bucket, wanted by the transposition cutoff below */
            child_key[lead] = tt_key(c, settled(c, after, next), next);
            __builtin_prefetch(tt_bucket(c, child_key[lead]));
            int key_value = lead == best_move ? INT32_MAX : c->history[leader][lead];
            int j = n_order++;
            while (j > 0 && keys[j - 1] < key_value) {
                order[j] = order[j - 1]; keys[j] = keys[j - 1]; j--;
            }
            order[j] = lead; keys[j] = key_value;
            continue;
        }
        val_t score = terminal(c, played | reached, winner);
        if (take_score(maximising, score, lead, &best, &chosen, &alpha, &beta)) break;
    }
    /* Enhanced transposition cutoff: a child whose stored bound already refutes the window
     * ends the node. A child whose bound decides it the other way (it cannot cut the node off)
     * is not searched either: its score is what its own table probe would return. */
    val_t known[52];
    unsigned char decided[52];
    for (int i = 0; i < n_order && alpha < beta; i++) {
        val_t child_lower, child_upper;
        int child_move;
        decided[i] = 0;
        if (!tt_lookup(c, child_key[order[i]], &child_lower, &child_upper, &child_move))
            continue;
        if (maximising ? child_lower >= beta : child_upper <= alpha) {
            best = maximising ? child_lower : child_upper;
            chosen = order[i];
            alpha = beta;
        } else if (child_lower >= beta) {
            decided[i] = 1;
            known[i] = child_lower;
        } else if (child_upper <= alpha || child_lower == child_upper) {
            decided[i] = 1;
            known[i] = child_upper;
        }
    }
    for (int i = 0; i < n_order && alpha < beta; i++) {
        const int lead = order[i];
        const uint64_t run = c->up[lead] & ~played;
        val_t score = decided[i] ? known[i]
                                 : search(c, played | run, c->holder[top_index(run)], alpha, beta);
        if (c->timed_out) return 0;
        if (take_score(maximising, score, lead, &best, &chosen, &alpha, &beta)) break;
    }
    store_node(c, key, played, leader, maximising, best, chosen, window_low, window_high,
               lower, upper);
    return best;
}

/* ---- General mode (docs/solver.md, "Choices inside a run"): a run is walked card by card,
 * each choice a node of its chooser, every position scored by the search below. ---- */

static inline val_t search_general(Core *c, uint64_t played, int leader, val_t alpha,
                                   val_t beta);
HOT static val_t general_node(Core *c, uint64_t played, int leader, val_t alpha, val_t beta);
HOT static val_t play_card(Core *c, uint64_t played, int slot, int seat, val_t alpha, val_t beta);

/* Fold one option's score into a choice node's best and window; true for a cut-off. */
static inline int fold(int maximising, val_t score, val_t *best, val_t *alpha, val_t *beta) {
    if (maximising) {
        if (score > *best) *best = score;
        if (score > *alpha) *alpha = score;
    } else {
        if (score < *best) *best = score;
        if (score < *beta) *beta = score;
    }
    return *alpha >= *beta;
}

/* The position after a run stopped at `slot`, led next by `leader`, or its end. */
static inline val_t next_lead(Core *c, uint64_t played, int leader, val_t alpha, val_t beta) {
    if (!(c->dealt[leader] & ~played)) return terminal(c, played, leader);
    return search_general(c, played, leader, alpha, beta);
}

/* The card a run goes on to once the card in lieu is played at a stop on `slot`: the card
 * above the missing one, if the reading goes on and that card can be played; else -1 (the
 * card in lieu's player leads). The 7D's missing card is the 8D, above which is the Pope
 * itself: the run goes on from the 10D. */
static inline int lieu_goes_on(const Core *c, uint64_t played, int slot) {
    if (!c->lieu_continues || slot % 13 > 10) return -1;
    int above = slot + 2;
    if (above == c->lieu_slot) {
        if (above % 13 == 12) return -1;
        above++;
    }
    return (c->in_play >> above & 1) && !(played >> above & 1) ? above : -1;
}

/* The card in lieu of the one missing at a stop, played by its holder; then `above` (the card
 * the run goes on to, `lieu_goes_on` of the stop, computed once by `at_stop`) if it is not -1,
 * else he leads. */
HOT static val_t in_lieu(Core *c, uint64_t played, int above, val_t alpha, val_t beta) {
    const int chooser = c->holder[c->lieu_slot];
    played |= 1ULL << c->lieu_slot;
    if (!(c->dealt[chooser] & ~played)) return terminal(c, played, chooser);
    if (above >= 0) return play_card(c, played, above, c->holder[above], alpha, beta);
    return search_general(c, played, chooser, alpha, beta);
}

HOT static val_t at_stop(Core *c, uint64_t played, int slot, int seat, val_t alpha, val_t beta);

/* Under run-continues, the run the card in lieu carries on from `goes_on` (after `with_lieu`),
 * forced: the position at its stop, whose holder leads next (*next); 0 where a seat goes out
 * in it (the card in lieu's player has a card left). */
static inline uint64_t carried_on(const Core *c, uint64_t with_lieu, int goes_on, int *next) {
    const uint64_t run = c->up[goes_on] & ~with_lieu;
    uint64_t played = with_lieu;
    for (uint64_t left = run; left; left &= left - 1) {
        played |= left & (0 - left);
        if (!(c->dealt[c->holder[bit_index(left)]] & ~played)) return 0;
    }
    *next = c->holder[top_index(run)];
    return played;
}

/* After `slot` was played by `seat` (not out): the next card up, or the stop. */
HOT static val_t after_card(Core *c, uint64_t played, int slot, int seat, val_t alpha, val_t beta) {
    const int next = slot + 1;
    if (slot % 13 != 12 && (c->in_play >> next & 1) && !(played >> next & 1))
        return play_card(c, played, next, c->holder[next], alpha, beta);
    return at_stop(c, played, slot, seat, alpha, beta);
}

/* A run stopped at `slot`, played by `seat`: the holder of the card in lieu may play it. The
 * card in lieu is tried first: what follows it is the forced-run game (under pope-leads at
 * once), searched with every fact, and its score often settles the choice before the declined
 * run's general-mode subtree is searched. Where its forced-run position is known (its player
 * leads next, or the run it carries on stops with no one out) and the target's bound
 * in that forced-run position (fact 3's ceiling where he maximises, the floor of facts 3c-3m
 * where he minimises) shows it cannot settle the choice, the declined run goes first, and the
 * card in lieu is searched only if that bound and the declined run's score leave the choice
 * open (docs/solver.md, "Choices inside a run"). */
HOT static val_t at_stop(Core *c, uint64_t played, int slot, int seat, val_t alpha, val_t beta) {
    if (c->lieu_slot < 0 || c->holder[c->lieu_slot] < 0 || (played >> c->lieu_slot & 1) ||
        (slot % 13 == 12 && !c->lieu_after_top))
        return search_general(c, played, seat, alpha, beta);
    const int chooser = c->holder[c->lieu_slot];
    const int maximising = c->is_max[chooser];
    const uint64_t with_lieu = played | 1ULL << c->lieu_slot;
    const int goes_on = lieu_goes_on(c, with_lieu, slot);  /* -1: the Pope's holder leads next */
    val_t best = maximising ? -INF : INF, score;
    /* A void choice: on its holder's own card, the rest of the Pope's stretch played, the
     * declined run has him lead next, and leading the Pope (alone in its run) reaches what the
     * Pope in lieu gives; so the declined run is worth at least that to his side (lead=any). */
    if (c->plain_after_lieu && c->lead_rule == LEAD_ANY && seat == chooser &&
        !(c->up[c->lieu_slot] & ~with_lieu) && goes_on < 0)
        return search_general(c, played, seat, alpha, beta);
    /* the declined run's position (fact 9, as search_general takes it) and its bucket, looked
     * up below or by its search (a cache miss, fetched while the bounds of the Pope's option
     * are computed) */
    const uint64_t declined = settled_lieu(c, played, seat);
    const uint64_t declined_key = tt_key(c, declined, seat);
    __builtin_prefetch(tt_bucket(c, declined_key));
    /* The Pope's option settled by its floor: in its holder's paranoid search, where he leads
     * after it (or, under run-continues, where the run it carries on stops), its forced-run
     * position's first test (facts 3c-3m), made here. */
    uint64_t after = 0;  /* the Pope's option's forced-run position, `next` on lead, once needed */
    int next = chooser;
    if (goes_on >= 0 && c->plain_after_lieu && c->goal != GOAL_FORCED_WIN &&
        (c->dealt[chooser] & ~with_lieu)) {
        const uint64_t carried = carried_on(c, with_lieu, goes_on, &next);
        if (carried) after = settled(c, carried, next);
        if (!(c->dealt[next] & ~after)) after = 0;
    }
    if (c->plain_after_lieu && c->goal == GOAL_GUARANTEED && maximising &&
        (goes_on < 0 || after)) {
        if (!after) after = settled(c, with_lieu, chooser);
        __builtin_prefetch(tt_bucket(c, tt_key(c, after, next)));  /* the option's, likewise */
        if (c->dealt[next] & ~after) {
            const val_t floor = target_floor(c, after, next, 1, beta);
            if (floor >= beta) return floor;
        }
    }
    if (c->plain_after_lieu && c->goal != GOAL_FORCED_WIN && (c->dealt[chooser] & ~with_lieu) &&
        (goes_on < 0 || after)) {
        if (!after) after = settled(c, with_lieu, chooser);  /* with_lieu holds the Pope: not 0 */
        const val_t side = maximising ? target_bound(c, after, next, 1)
                                      : target_floor(c, after, next, 1, beta);
        if (maximising ? side < beta : side > alpha) {
            score = general_node(c, declined, seat, alpha, beta);
            if (c->timed_out || fold(maximising, score, &best, &alpha, &beta)) return best;
            /* the declined run did not settle it: both options bounded by side and score */
            const val_t both = maximising ? (side > score ? side : score)
                                          : (side < score ? side : score);
            if (maximising ? both <= alpha : both >= beta) return both;
            score = in_lieu(c, played, goes_on, alpha, beta);
            fold(maximising, score, &best, &alpha, &beta);
            return best;
        }
    }
    /* A bound the table holds for the declined run's position that already settles the choice
     * saves the search of the card in lieu (as the enhanced transposition cutoff does). */
    val_t known_lower, known_upper;
    int known_move;
    if (tt_lookup(c, declined_key, &known_lower, &known_upper,
                  &known_move) && (maximising ? known_lower >= beta : known_upper <= alpha))
        return maximising ? known_lower : known_upper;
    score = in_lieu(c, played, goes_on, alpha, beta);
    if (c->timed_out || fold(maximising, score, &best, &alpha, &beta)) return best;
    score = general_node(c, declined, seat, alpha, beta);
    fold(maximising, score, &best, &alpha, &beta);
    return best;
}

/* A lead with the card in lieu as the only choice (no Spin): by fact 1, which holds until
 * the Pope is played, the declined run is up[lead] & ~played, as in `search`. */
static inline val_t lead_with_lieu(Core *c, uint64_t played, int lead, val_t alpha,
                                   val_t beta) {
    const uint64_t run = c->up[lead] & ~played;
    const uint64_t after = played | run;
    int can_out[MAX_SEATS];
    const int n_can_out = seats_near_out(c, played, can_out);
    uint64_t reached;
    const int winner = first_out(c, played, run, can_out, n_can_out, &reached);
    if (winner >= 0) return terminal(c, played | reached, winner);
    const int stop = top_index(run);
    return at_stop(c, after, stop, c->holder[stop], alpha, beta);
}

/* `seat` plays `slot` in a run; its holder of Spin may then play Spin on top of it. */
HOT static val_t play_card(Core *c, uint64_t played, int slot, int seat, val_t alpha, val_t beta) {
    played |= 1ULL << slot;
    if (!(c->dealt[seat] & ~played)) return terminal(c, played, seat);
    const int spin = c->spin_slot;
    if (spin < 0 || slot == spin || c->holder[spin] != seat || (played >> spin & 1))
        return after_card(c, played, slot, seat, alpha, beta);
    const int maximising = c->is_max[seat];
    val_t best = maximising ? -INF : INF;
    val_t score = after_card(c, played, slot, seat, alpha, beta);
    if (c->timed_out || fold(maximising, score, &best, &alpha, &beta)) return best;
    score = next_lead(c, played | (1ULL << spin), seat, alpha, beta);
    fold(maximising, score, &best, &alpha, &beta);
    return best;
}

/* Fact 6 (docs/solver.md): with payments between players, bounds on the target's counters
 * from the awards it has taken, may take and may pay, and the cards left. */
HOT static int payment_bounds(const Core *c, uint64_t played, int leader, val_t *alpha,
                              val_t *beta, val_t *cut) {
    val_t now = 0, gain = 0, loss = 0;
    const int target = c->target;
    for (int i = 0; i < c->n_owned[target]; i++) {
        const val_t amount = c->owned_amount[target][i];
        if (!(c->owned_mask[target][i] & ~played)) now += amount;
        else if (amount > 0) gain += amount;
        else loss += amount;
    }
    const int held = popcount(c->dealt[target] & ~played);
    const val_t floor = now + loss + c->per_card * ((leader == target) - held);
    if (floor >= *beta) { *cut = floor; return 1; }
    const val_t bound = now + gain + c->game_stake +
                        c->per_card * popcount(c->in_play & ~played & ~c->dealt[target]);
    if (bound <= *alpha) { *cut = bound; return 1; }
    if (floor > *alpha) *alpha = floor;
    if (bound < *beta) *beta = bound;
    return 0;
}

/* Fact 10 (docs/solver.md): once Spin is played every run is forced again, and the played
 * cards form the top part of each stretch but one: the stretch where Spin stopped a run on
 * a card below its top, whose played card with an unplayed one above (`gap`, at most one: Spin
 * is played once) splits it in two, as if the card above were dead. The forced-run search
 * runs on the split stretches. */
static val_t after_spin(Core *c, uint64_t played, int leader, val_t alpha, val_t beta) {
    const uint64_t gap = played & (~played >> 1) & c->fill[0];
    if (!gap) return search(c, played, leader, alpha, beta);
    const int p = bit_index(gap);
    const uint64_t above = c->up[p + 1];
    int low = p;
    while (low % 13 && (c->fill[0] >> (low - 1) & 1)) low--;
    uint64_t saved_up[13], saved_bound[13], saved_fill[4];
    memcpy(saved_fill, c->fill, sizeof saved_fill);
    for (int i = low; i <= p; i++) {
        saved_up[i - low] = c->up[i];
        saved_bound[i - low] = c->bound_up[i];
        c->up[i] &= ~above;
        c->bound_up[i] &= ~above;
    }
    c->fill[0] &= ~gap;
    c->fill[1] = c->fill[0] & (c->fill[0] >> 1);
    c->fill[2] = c->fill[1] & (c->fill[1] >> 2);
    c->fill[3] = c->fill[2] & (c->fill[2] >> 4);
    const val_t value = search(c, played, leader, alpha, beta);
    for (int i = low; i <= p; i++) {
        c->up[i] = saved_up[i - low];
        c->bound_up[i] = saved_bound[i - low];
    }
    memcpy(c->fill, saved_fill, sizeof saved_fill);
    return value;
}

/* The leads of a node of search_general before Spin is played, folded into its best and
 * window (docs/solver.md, "Spin's forced leads"). A lead whose run holds no card of Spin's
 * holder is forced, as in `search`: one that ends the deal is scored first, and the others'
 * positions are looked up in the table before any is searched (the enhanced transposition
 * cutoff); a lead with a choice of Spin in its run is walked card by card. */
static void spin_leads(Core *c, uint64_t played, int leader, const int *moves, int n_moves,
                       int prune, val_t *best, int *chosen, val_t *alpha, val_t *beta) {
    const int maximising = c->is_max[leader];
    const uint64_t own = c->dealt[leader], spinner = c->dealt[c->holder[c->spin_slot]];
    int can_out[MAX_SEATS];
    const int n_can_out = seats_near_out(c, played, can_out);
    int order[52], next[52], n_order = 0;
    uint64_t child[52];  /* a forced lead's position (0: a lead with a choice of Spin) */
    for (int i = 0; i < n_moves; i++) {
        const uint64_t run = c->up[moves[i]] & ~played;
        if (prune && !(run & ~own) && (run & (run - 1))) continue;  /* fact 4 */
        child[n_order] = 0;
        if (!(run & spinner)) {
            uint64_t reached;
            const int winner = first_out(c, played, run, can_out, n_can_out, &reached);
            if (winner >= 0) {
                if (take_score(maximising, terminal(c, played | reached, winner), moves[i], best,
                               chosen, alpha, beta))
                    return;
                continue;
            }
            child[n_order] = played | run;
            next[n_order] = c->holder[top_index(run)];
        }
        order[n_order++] = moves[i];
    }
    /* A child whose stored bound refutes the window ends the node; one whose bound decides
     * it the other way is not searched (as in `search`). */
    val_t known[52];
    unsigned char decided[52];
    for (int i = 0; i < n_order && *alpha < *beta; i++) {
        val_t lower, upper;
        int move;
        decided[i] = 0;
        if (!child[i] || !tt_lookup(c, tt_key(c, child[i], next[i]), &lower, &upper, &move))
            continue;
        if (maximising ? lower >= *beta : upper <= *alpha) {
            *best = maximising ? lower : upper;
            *chosen = order[i];
            *alpha = *beta;
        } else if (lower >= *beta) {
            decided[i] = 1;
            known[i] = lower;
        } else if (upper <= *alpha || lower == upper) {
            decided[i] = 1;
            known[i] = upper;
        }
    }
    for (int i = 0; i < n_order && *alpha < *beta; i++) {
        const val_t score = decided[i] ? known[i]
                          : child[i] ? search_general(c, child[i], next[i], *alpha, *beta)
                                     : play_card(c, played, order[i], leader, *alpha, *beta);
        if (c->timed_out) return;
        if (take_score(maximising, score, order[i], best, chosen, alpha, beta)) return;
    }
}

/* The alpha-beta of `search` without the facts that assume a forced run. */
static inline val_t search_general(Core *c, uint64_t played, int leader, val_t alpha,
                                   val_t beta) {
    /* The Pope played, no choice is left: every run is forced again, and played cards form the
     * top part of each stretch but the Pope's, which the Pope (its bottom card: the 8D is never
     * in the pack) leaves behind as if it were dead. So the facts of docs/solver.md hold. */
    if (c->plain_after_lieu && (played >> c->lieu_slot & 1)) return search(c, played, leader, alpha, beta);
    /* Fact 10: Spin played (or dead), every run is forced; the facts that hold with payments
     * between players are search's, with the payments counted. */
    if (c->plain_after_spin && (c->holder[c->spin_slot] < 0 || (played >> c->spin_slot & 1)))
        return after_spin(c, played, leader, alpha, beta);
    played = settled_lieu(c, played, leader);  /* fact 9 */
    if (c->plain_after_spin) played = settled_before_spin(c, played, leader);  /* fact 18 */
    return general_node(c, played, leader, alpha, beta);
}

/* A node of `search_general` in the position it takes `played` for (fact 9 applied, and
 * fact 18 under Spin: at_stop, where there is no Spin, computes that position for its own
 * table look-up and searches it here, not twice). */
HOT static val_t general_node(Core *c, uint64_t played, int leader, val_t alpha, val_t beta) {
    if (!(c->dealt[leader] & ~played)) return terminal(c, played, leader);
    if (count_node(c)) return 0;
    uint64_t key = tt_key(c, played, leader);
    val_t lower = -INF, upper = INF, cut;
    int best_move = -1;
    if (tt_probe(c, key, &lower, &upper, &best_move, &alpha, &beta, &cut)) return cut;
    /* Fact 3 holds with the Pope in lieu of a stop when the Pope is a stretch of its own for
     * the bound (docs/solver.md, "Choices inside a run"); not with Spin or payments between
     * players. Fact 7: the holder of the card in lieu may decline it at every stop, which is
     * the forced-run game; so where he maximises, the forced-run game's floors (facts
     * 3c-3m, 3i and 3l) hold, and where he minimises, its ceilings (fact 3j against the
     * target). */
    const int lieu_side = c->plain_after_lieu && c->holder[c->lieu_slot] >= 0
                          ? c->is_max[c->holder[c->lieu_slot]] : -1;
    if (c->plain_after_lieu && c->goal != GOAL_FORCED_WIN) {
        if (target_bounds(c, played, leader, &alpha, &beta, &cut, 0,
                          lieu_side == 1 ? 1 : RACE_IN_LIEU))
            return cut;
    } else if (lieu_side == 1 && leader == c->target && c->lead_rule == LEAD_ANY &&
               (goes_out_now(c, played, leader) || out_in_two(c, played))) {
        return 1;  /* facts 3i and 3l, by fact 7 */
    }
    if (lieu_side == c->is_max[leader] && leader != c->target && c->lead_rule == LEAD_ANY &&
        goes_out_now(c, played, leader) &&
        other_out_bounds(c, played, leader, &alpha, &beta, &cut))
        return cut;  /* fact 3j, by fact 7: the seat on lead is on the side of the holder */
    if (c->plain_after_spin) {
        /* Fact 11: the holder of Spin may always decline it: where he maximises, the
         * forced-run game's floors hold; its ceiling holds with one stretch left out. */
        const int spin_side = c->is_max[c->holder[c->spin_slot]];
        if (c->goal != GOAL_FORCED_WIN) {
            if (target_bounds(c, played, leader, &alpha, &beta, &cut, SPIN_OPEN,
                              spin_side ? 1 : SPIN_OPEN))
                return cut;
        } else if (leader == c->target && c->lead_rule == LEAD_ANY &&
                   (goes_out_now(c, played, leader) || (spin_side && out_in_two(c, played)))) {
            return 1;
        }
        if (leader != c->target && c->lead_rule == LEAD_ANY && goes_out_now(c, played, leader) &&
            other_out_bounds(c, played, leader, &alpha, &beta, &cut))
            return cut;  /* fact 3j: going out at once is the seat on lead's to choose */
    }
    if (c->general == 2 && c->goal != GOAL_FORCED_WIN &&
        payment_bounds(c, played, leader, &alpha, &beta, &cut))
        return cut;
    /* Fact 17 (docs/solver.md): where the holder of the card in lieu maximises, the position
     * with the minimising seat on lead's isolated cards led is a floor (he may decline at each
     * of their stops), not the value: searched first, it settles the node when it reaches
     * beta. Under run-continues only the isolated cards no carried run can reach. */
    if (lieu_side == 1 && !c->is_max[leader]) {
        const uint64_t isolated = settled(c, played, leader) & ~(played | 1ULL << c->lieu_slot);
        const uint64_t floor_at = played | beyond_carries(c, played, isolated);
        if (floor_at != played) {
            const val_t score = search_general(c, floor_at, leader, alpha, beta);
            if (c->timed_out) return 0;
            if (score >= beta) {
                store_node(c, key, played, leader, 0, score, -1, alpha, beta, lower, upper);
                return score;
            }
        }
    }
    const val_t window_low = alpha, window_high = beta;
    int moves[52], keys[52];
    int n_moves = gen_leads(c, played, leader, moves);
    for (int i = 0; i < n_moves; i++) {  /* the table's move first, then by history */
        int lead = moves[i], key_value = lead == best_move ? INT32_MAX : c->history[leader][lead];
        int j = i;
        while (j > 0 && keys[j - 1] < key_value) {
            moves[j] = moves[j - 1]; keys[j] = keys[j - 1]; j--;
        }
        moves[j] = lead; keys[j] = key_value;
    }
    const int maximising = c->is_max[leader];
    val_t best = maximising ? -INF : INF;
    int chosen = -1;
    /* Fact 4 (docs/solver.md) holds while the holder of the card in lieu plays on the
     * leader's side: leading the top card of his own run first only gives that side more
     * choices. Against the leader it would give the other side more: not used then. Nor
     * where the card in lieu, played at the own run's stop, would carry the run on: that
     * run, with all the leader's cards below the stop played, no other order of his leads
     * reaches (his last lead's stop is then on a played card, with nothing left to climb). */
    const int prune = (c->plain_after_lieu && c->prune_blocks &&
                       c->is_max[c->holder[c->lieu_slot]] == c->is_max[leader]) ||
                      (c->plain_after_spin && c->prune_blocks &&
                       c->holder[c->spin_slot] != leader);
    const uint64_t own = c->dealt[leader];
    if (c->plain_after_spin) {
        spin_leads(c, played, leader, moves, n_moves, prune, &best, &chosen, &alpha, &beta);
        if (c->timed_out) return 0;
        n_moves = 0;  /* every lead is scored */
    }
    for (int i = 0; i < n_moves; i++) {
        if (prune) {
            const uint64_t run = c->up[moves[i]] & ~played;
            if (!(run & ~own) && (run & (run - 1)) && lieu_goes_on(c, played, top_index(run)) < 0)
                continue;
        }
        val_t score = c->plain_after_lieu ? lead_with_lieu(c, played, moves[i], alpha, beta)
                                          : play_card(c, played, moves[i], leader, alpha, beta);
        if (c->timed_out) return 0;
        if (take_score(maximising, score, moves[i], &best, &chosen, &alpha, &beta)) break;
    }
    store_node(c, key, played, leader, maximising, best, chosen, window_low, window_high,
               lower, upper);
    return best;
}

static void prepare(Core *c, int goal, int target) {
    c->goal = goal;
    c->target = target;
    c->objective_id = goal * 8 + target;  /* < 32: five bits */
    for (int s = 0; s < c->n; s++) c->is_max[s] = (goal == GOAL_BEST_CASE) || s == target;
    c->all_mine = c->game_stake + taken_by(c, ~0ULL, target);  /* every award of its taken */
    c->gain_all = 0;
    for (int i = 0; i < c->n_owned[target]; i++)
        if (c->owned_amount[target][i] > 0) c->gain_all += c->owned_amount[target][i];
    c->exempt_mine = 0;
    for (int a = 0; a < c->n_awards; a++)
        if (c->exempt_bit && c->award_mask[a] == c->exempt_bit && c->award_seat[a][0] == target)
            c->exempt_mine = c->award_amount[a][0];
    const uint64_t in_play = c->in_play;  /* every dealt card (Core_init) */
    c->theirs = in_play & ~c->dealt[target];
    /* Fact 3e (docs/solver.md): no run can reach a card at the bottom of its stretch, so
     * under lead=any its holder plays it only when he chooses to. */
    const int below = c->exempt_slot - 1;
    c->pope_bottom = c->exempt_bit && (c->exempt_slot % 13 == 0 || !(in_play >> below & 1));
    c->exempt_kept = c->exempt_bit && c->lead_rule == LEAD_ANY &&
                     (c->exempt_slot % 13 == 0 || !(in_play >> below & 1));
    c->history = c->histories[c->objective_id];
    /* Fact 5 (docs/solver.md): for the forced win no card is kept apart; for the paranoid
     * value the Pope and every card of an award the target shares in. */
    c->isolating = goal != GOAL_BEST_CASE && c->lead_rule == LEAD_ANY &&
                   !(goal == GOAL_GUARANTEED && (c->dealt[target] & c->exempt_bit) &&
                     !c->exempt_kept);
    /* Facts 10 and 15: with payments between players, for the paranoid value only where no
     * seat but the one on lead holds a card of an award the target pays for (settled) */
    c->pay_cards = 0;
    if (goal == GOAL_GUARANTEED)
        for (int i = 0; i < c->n_owned[target]; i++)
            if (c->owned_amount[target][i] < 0) c->pay_cards |= c->owned_mask[target][i];
    /* Fact 5b: the target on lead too, its Pope kept for the paranoid value, and there only
     * where every award it takes is of its own cards (going out sooner then loses none). */
    c->self_isolating = goal != GOAL_BEST_CASE && c->lead_rule == LEAD_ANY;
    c->self_keep = goal == GOAL_GUARANTEED ? c->exempt_bit : 0;
    if (goal == GOAL_GUARANTEED)
        for (int i = 0; i < c->n_owned[target]; i++)
            if (c->owned_amount[target][i] > 0 && (c->owned_mask[target][i] & ~c->dealt[target]))
                c->self_isolating = 0;
    /* Fact 20 (docs/solver.md): fact 5b in the best case too, with payments between players
     * and no exempt card, where every award the target takes is of its own cards and none it
     * pays for holds one of them (going out sooner then loses it nothing). */
    if (goal == GOAL_BEST_CASE && c->paying && !c->exempt_bit &&
        c->lead_rule == LEAD_ANY) {
        c->self_isolating = 1;
        for (int i = 0; i < c->n_owned[target]; i++) {
            const uint64_t mask = c->owned_mask[target][i], own = c->dealt[target];
            if (c->owned_amount[target][i] > 0 ? (mask & ~own) != 0 : (mask & own) != 0)
                c->self_isolating = 0;
        }
    }
    c->keep_apart = 0;
    if (goal == GOAL_GUARANTEED) {
        c->keep_apart = c->exempt_bit;
        for (int i = 0; i < c->n_owned[target]; i++) c->keep_apart |= c->owned_mask[target][i];
    }
}

/* The value of `leader` leading `lead` from `played` in the general mode: the run walked
 * card by card, each choice in it taken by its chooser (as search_general scores a lead). */
static val_t lead_general(Core *c, uint64_t played, int leader, int lead, val_t alpha,
                          val_t beta) {
    return c->plain_after_lieu ? lead_with_lieu(c, played, lead, alpha, beta)
                               : play_card(c, played, lead, leader, alpha, beta);
}

/* MTD(f) from `guess`: null-window searches close [*low, *high] in on the value for `goal`
 * and `target` of the position (`lead` < 0), or of `leader` leading `lead` there in the
 * general mode; left open where the search timed out or was cancelled. */
static void mtd(Core *c, int goal, int target, uint64_t played, int leader, int lead,
                val_t *low, val_t *high, val_t guess) {
    prepare(c, goal, target);
    if (guess < *low) guess = *low;
    if (guess > *high) guess = *high;
    val_t step = 1;
    int last_direction = 0;
    while (*low < *high && !(c->timed_out = c->timed_out || cancelled(c))) {
        val_t beta = guess == *low ? guess + 1 : guess;
        val_t score = lead >= 0 ? lead_general(c, played, leader, lead, beta - 1, beta)
                      : c->general ? search_general(c, played, leader, beta - 1, beta)
                                   : search(c, played, leader, beta - 1, beta);
        if (c->timed_out) break;
        int direction = score < beta ? -1 : 1;
        if (score < beta) *high = score; else *low = score;
        /* Passes that keep moving the same way take steps of 1, 3, 9, ... (MTD(f) would crawl
         * one counter at a time towards a value far from the first guess). */
        step = direction == last_direction && step < INF / 4 ? step * 3 : 1;
        last_direction = direction;
        guess = score + direction * (step - 1);
        if (guess < *low) guess = *low;
        if (guess > *high) guess = *high;
    }
}

/* Core.value(goal, target, played, leader, low, high, guess, deadline)
 *   -> (lower, upper, complete): MTD(f) from `guess` within the static bounds [low, high]. */
static PyObject *Core_value(Core *c, PyObject *args) {
    int goal, target, leader;
    val_t low, high, guess;
    unsigned long long played;
    double deadline;
    if (!PyArg_ParseTuple(args, "iiKiLLLd", &goal, &target, &played, &leader, &low, &high,
                          &guess, &deadline))
        return NULL;
    if (goal < 0 || goal > 2 || target < 0 || target >= c->n || leader < 0 || leader >= c->n) {
        PyErr_SetString(PyExc_ValueError, "bad goal, seat or leader");
        return NULL;
    }
    if (played >> 52) {  /* a key proper must stay below 2^KEY_BITS */
        PyErr_SetString(PyExc_ValueError, "played: a mask of 52 slots");
        return NULL;
    }
    if (c->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this Core is already searching in another thread");
        return NULL;
    }
    c->busy = 1;
    c->deadline = deadline;
    c->timed_out = 0;
    /* Let other threads run Python while this searches, but only once it has searched
     * GIL_NODES nodes: a search of a few dozen nodes (half the searches of advice) would spend
     * more on handing the GIL to another thread and waiting to take it back. */
    c->gil_release_at = c->nodes + GIL_NODES;
    c->gil_saved = NULL;
    mtd(c, goal, target, played, leader, -1, &low, &high, guess);
    if (c->gil_saved) PyEval_RestoreThread(c->gil_saved);
    c->gil_release_at = 0;
    c->busy = 0;
    return Py_BuildValue("LLO", low, high, c->timed_out ? Py_False : Py_True);
}

/* Core.lead_values(target, played, leader, guess, deadline, forced_win, staying)
 *   -> (((lead, lower, upper, win_lower, win_upper), ...), complete): every legal lead of the
 * target on lead, runs forced, with its paranoid value and forced win, as search/leads.py's
 * _lead_eval finds them a lead at a time (docs/solver.md, "The leads of one position"): one
 * call for a sampled deal's leads instead of one a lead. `staying`: the most the target ends
 * with without going out (a value above it is a forced win). */
static PyObject *Core_lead_values(Core *c, PyObject *args) {
    int target, leader, forced_win;
    unsigned long long played;
    val_t guess, staying;
    double deadline;
    if (!PyArg_ParseTuple(args, "iKiLdpL", &target, &played, &leader, &guess, &deadline,
                          &forced_win, &staying))
        return NULL;
    if (target < 0 || target >= c->n || leader != target) {
        PyErr_SetString(PyExc_ValueError, "bad seat: the leads are the seat on lead's");
        return NULL;
    }
    if (played >> 52) {
        PyErr_SetString(PyExc_ValueError, "played: a mask of 52 slots");
        return NULL;
    }
    if (c->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this Core is already searching in another thread");
        return NULL;
    }
    int moves[52];
    const int n_moves = gen_leads(c, played, leader, moves);
    val_t found[52][4];
    c->busy = 1;
    c->deadline = deadline;
    c->timed_out = 0;
    c->gil_release_at = c->nodes + GIL_NODES;
    c->gil_saved = NULL;
    prepare(c, GOAL_GUARANTEED, target);
    val_t paid = 0, most = c->game_stake;  /* what it may pay, and take, in awards */
    for (int a = 0; a < c->n_owned[target]; a++) {
        if (c->owned_amount[target][a] < 0) paid += c->owned_amount[target][a];
        else most += c->owned_amount[target][a];
    }
    /* The general mode walks a lead's run card by card; once the card in lieu is played every
     * run is forced again (search_general hands such positions to search). */
    const int general = c->general && !(c->plain_after_lieu && (played >> c->lieu_slot & 1));
    int can_out[MAX_SEATS];
    const int n_can_out = seats_near_out(c, played, can_out);
    for (int i = 0; i < n_moves; i++) {
        const uint64_t run = c->up[moves[i]] & ~played;
        val_t *v = found[i];
        uint64_t reached;
        const int winner = general ? -1 : first_out(c, played, run, can_out, n_can_out, &reached);
        if (winner >= 0) {
            v[0] = v[1] = payoff(c, played | reached, winner, target);
            v[2] = v[3] = winner == target;
            continue;
        }
        /* the static bounds (as the driver's), from the position after a forced run, or
         * before the lead in the general mode (its run is not known yet) */
        const uint64_t after = general ? played : played | run;
        const int next = general ? leader : c->holder[top_index(run)];
        const int lead = general ? moves[i] : -1;
        v[0] = paid - c->per_card * popcount(c->dealt[target] & ~after);
        v[1] = most;
        for (int o = 0; o < c->n; o++)
            if (o != target) v[1] += c->per_card * popcount(c->dealt[o] & ~after);
        if (deadline > 0 && now_seconds() > deadline) c->timed_out = 1;
        mtd(c, GOAL_GUARANTEED, target, after, next, lead, &v[0], &v[1], guess);
        if (v[0] == v[1]) guess = v[0];  /* the next lead starts from this one's value */
        v[2] = 0;
        v[3] = 1;
        if (!forced_win) continue;
        if (v[1] < c->game_stake && c->general != 2) {  /* no payments between players */
            v[3] = 0;
            continue;
        }
        if (v[0] > staying) { v[2] = 1; continue; }
        mtd(c, GOAL_FORCED_WIN, target, after, next, lead, &v[2], &v[3], 1);
    }
    if (c->gil_saved) PyEval_RestoreThread(c->gil_saved);
    c->gil_release_at = 0;
    c->busy = 0;
    PyObject *leads = PyTuple_New(n_moves);
    if (!leads) return NULL;
    for (int i = 0; i < n_moves; i++) {
        PyObject *one = Py_BuildValue("iLLLL", moves[i], found[i][0], found[i][1], found[i][2],
                                      found[i][3]);
        if (!one) { Py_DECREF(leads); return NULL; }
        PyTuple_SET_ITEM(leads, i, one);
    }
    return Py_BuildValue("NO", leads, c->timed_out ? Py_False : Py_True);
}

/* Core.cancel(): every search, running (in another thread) or to come, stops at once and
 * reports itself incomplete; what Ctrl-C does to a solve. */
static PyObject *Core_cancel(Core *c, PyObject *unused) {
    (void)unused;
    __atomic_store_n(&c->cancelled, 1, __ATOMIC_RELAXED);
    Py_RETURN_NONE;
}

static PyObject *Core_nodes(Core *c, void *closure) {
    (void)closure;
    return PyLong_FromLongLong(c->nodes);
}

static int read_u64_list(PyObject *seq, uint64_t *out, Py_ssize_t want, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (want >= 0 && n != want) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items", what, want);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (PyErr_Occurred()) { Py_DECREF(fast); return -1; }
    }
    Py_DECREF(fast);
    return (int)n;
}

/* Core(dealt, up, holder, lead_rule, awards, game_stake, exempt_bit, tt_entries, choices,
 *      per_card)
 *   awards: sequence of (mask, ((seat, amount), ...)), amounts negative for a seat that pays;
 *   choices: (spin_slot, lieu_slot, lieu_after_top, lieu_continues), -1 for a slot not used;
 *   per_card: what each card left in hand pays the seat that goes out (0 to 2**40). */
static int Core_init(Core *c, PyObject *args, PyObject *kwds) {
    (void)kwds;
    PyObject *dealt, *up, *holder, *awards;
    int lead_rule;
    val_t game_stake, per_card;
    unsigned long long exempt_bit, tt_entries;
    int spin_slot, lieu_slot, lieu_after_top, lieu_continues;
    if (!PyArg_ParseTuple(args, "OOOiOLKK(iiii)L", &dealt, &up, &holder, &lead_rule, &awards,
                          &game_stake, &exempt_bit, &tt_entries, &spin_slot, &lieu_slot,
                          &lieu_after_top, &lieu_continues, &per_card))
        return -1;
    if (per_card < 0 || per_card > MAX_AMOUNT) {
        PyErr_SetString(PyExc_ValueError, "per_card: from 0 to 2**40 counters a card");
        return -1;
    }
    c->per_card = per_card;
    if (spin_slot < -1 || spin_slot >= 52 || lieu_slot < -1 || lieu_slot >= 52) {
        PyErr_SetString(PyExc_ValueError, "choices: a slot from 0 to 51, or -1");
        return -1;
    }
    c->spin_slot = spin_slot;
    c->lieu_slot = lieu_slot;
    c->lieu_after_top = lieu_after_top != 0;
    c->lieu_continues = lieu_continues != 0;
    c->general = spin_slot >= 0 || lieu_slot >= 0;
    int n = read_u64_list(dealt, c->dealt, -1, "dealt");
    if (n < 0) return -1;
    if (n < 1 || n > MAX_SEATS) { PyErr_SetString(PyExc_ValueError, "1 to 8 seats"); return -1; }
    c->n = n;
    if (read_u64_list(up, c->up, 52, "up") < 0) return -1;
    PyObject *hf = PySequence_Fast(holder, "holder");
    if (!hf) return -1;
    if (PySequence_Fast_GET_SIZE(hf) != 52) {
        Py_DECREF(hf);
        PyErr_SetString(PyExc_ValueError, "holder: expected 52 items");
        return -1;
    }
    for (int i = 0; i < 52; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(hf, i));
        if (PyErr_Occurred()) { Py_DECREF(hf); return -1; }
        c->holder[i] = (int8_t)v;
    }
    Py_DECREF(hf);
    c->lead_rule = lead_rule;
    c->prune_blocks = lead_rule == LEAD_ANY;
    c->game_stake = game_stake;
    c->exempt_bit = exempt_bit;
    c->exempt_slot = exempt_bit ? bit_index(exempt_bit) : 0;
    if (exempt_bit && c->holder[c->exempt_slot] < 0) c->exempt_bit = 0;  /* a dead Pope pays no one */
    PyObject *fast = PySequence_Fast(awards, "awards");
    if (!fast) return -1;
    Py_ssize_t na = PySequence_Fast_GET_SIZE(fast);
    if (game_stake < 0 || game_stake > MAX_AMOUNT) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "the Game stake must be from 0 to 2**40");
        return -1;
    }
    val_t magnitude = game_stake + 64 * per_card;  /* the most a value can be, cards included */
    if (na > MAX_AWARDS) { Py_DECREF(fast); PyErr_SetString(PyExc_ValueError, "too many awards"); return -1; }
    c->n_awards = (int)na;
    for (Py_ssize_t a = 0; a < na; a++) {
        unsigned long long mask;
        PyObject *takers;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, a), "KO", &mask, &takers)) {
            Py_DECREF(fast);
            return -1;
        }
        c->award_mask[a] = mask;
        PyObject *tf = PySequence_Fast(takers, "takers");
        if (!tf) { Py_DECREF(fast); return -1; }
        Py_ssize_t nt = PySequence_Fast_GET_SIZE(tf);
        if (nt < 1 || nt > n) {
            Py_DECREF(tf); Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "an award has one taker to one per seat");
            return -1;
        }
        c->award_takers[a] = (int)nt;
        for (Py_ssize_t k = 0; k < nt; k++) {
            int seat;
            val_t amount;
            if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(tf, k), "iL", &seat, &amount)) {
                Py_DECREF(tf); Py_DECREF(fast);
                return -1;
            }
            if (amount < -MAX_AMOUNT || amount > MAX_AMOUNT || seat < 0 || seat >= n) {
                Py_DECREF(tf); Py_DECREF(fast);
                PyErr_SetString(PyExc_ValueError, "an award goes to a seat, from -2**40 to 2**40");
                return -1;
            }
            if (amount < 0) c->general = 2;  /* fact 3 assumes awards only add */
            magnitude += amount < 0 ? -amount : amount;
            c->award_seat[a][k] = seat;
            c->award_amount[a][k] = amount;
        }
        Py_DECREF(tf);
    }
    Py_DECREF(fast);
    for (int seat = 0; seat < n; seat++) {
        c->n_owned[seat] = 0;
        for (int a = 0; a < c->n_awards; a++) {
            val_t sum = 0;
            int takes = 0;
            for (int k = 0; k < c->award_takers[a]; k++)
                if (c->award_seat[a][k] == seat) { sum += c->award_amount[a][k]; takes = 1; }
            if (!takes) continue;
            c->owned_mask[seat][c->n_owned[seat]] = c->award_mask[a];
            c->owned_amount[seat][c->n_owned[seat]++] = sum;
        }
    }
    /* The stretches as links between neighbouring slots, checked against up[]: a dealt slot's
     * up is the slot and, when it is linked to the next, that slot's up. */
    uint64_t dealt_all = 0, link = 0;
    for (int seat = 0; seat < n; seat++) dealt_all |= c->dealt[seat];
    c->in_play = dealt_all;
    for (int i = 0; i < 51; i++)
        if ((dealt_all >> i & 1) && (dealt_all >> (i + 1) & 1) && (c->up[i] >> (i + 1) & 1))
            link |= 1ULL << i;
    for (int i = 0; i < 52; i++) {
        if (!(dealt_all >> i & 1)) continue;
        const uint64_t want = (1ULL << i) | (link >> i & 1 ? c->up[i + 1] : 0);
        if (c->up[i] != want) {
            PyErr_SetString(PyExc_ValueError, "up: not the stretches of the dealt cards");
            return -1;
        }
    }
    c->fill[0] = link;
    c->fill[1] = c->fill[0] & (c->fill[0] >> 1);
    c->fill[2] = c->fill[1] & (c->fill[1] >> 2);
    c->fill[3] = c->fill[2] & (c->fill[2] >> 4);
    if (c->lieu_slot >= 0 && c->holder[c->lieu_slot] < 0) c->lieu_slot = -1;  /* a dead Pope */
    memcpy(c->bound_up, c->up, sizeof c->up);
    if (c->lieu_slot >= 0) c->bound_up[c->lieu_slot] = 1ULL << c->lieu_slot;
    c->plain_after_lieu = c->lieu_slot >= 0 && c->spin_slot < 0 && c->general != 2;
    c->paying = c->general == 2;
    c->plain_after_spin = c->spin_slot >= 0 && c->lieu_slot < 0;
    /* Under run-continues, the stops from which the card in lieu carries a run on: a card
     * whose next is out of play, to two above (or, below the Pope's missing card, past it). */
    c->carry_two = 0;
    c->carry_from = c->carry_to = -1;
    for (int i = 0; c->plain_after_lieu && i < 52; i++) {
        if (!(c->in_play >> i & 1) || i % 13 == 12 || (c->in_play >> (i + 1) & 1)) continue;
        const int above = lieu_goes_on(c, 0, i);
        if (above == i + 2) c->carry_two |= 1ULL << i;
        else if (above >= 0) { c->carry_from = i; c->carry_to = above; }
    }
    if (c->general == 1 && c->spin_slot < 0 && c->lieu_slot < 0) c->general = 0;
    c->wide = magnitude >= NARROW_LIMIT;
    c->entry_size = c->wide ? sizeof(WideEntry) : sizeof(Entry);
    c->ways = (int)(BUCKET_BYTES / c->entry_size);
    c->cancelled = 0;
    int max_log2 = 0;
    uint64_t want = tt_entries / (BUCKET_BYTES / sizeof(Entry));
    if (want < 1024) want = 1024;
    while (((uint64_t)1 << max_log2) < want) max_log2++;
    c->tt_max_log2 = max_log2;
    c->tt_log2 = max_log2 < 12 ? max_log2 : 12;  /* start at 4096 buckets and grow */
    c->tt_shift = 64 - c->tt_log2;
    c->tt_used = 0;
    free(c->tt);
    c->generation = tt_next_generation();
    c->tt_gen = tt_tag(c->generation);
    c->tt_held = tt_alloc(c->generation, (size_t)1 << c->tt_log2);
    c->tt = c->tt_held.table;
    if (!c->tt) { PyErr_NoMemory(); return -1; }
    c->nodes = 0;
    return 0;
}

static void Core_dealloc(Core *c) {
    tt_release(c->tt_held, (size_t)1 << c->tt_log2);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static PyMethodDef Core_methods[] = {
    {"value", (PyCFunction)Core_value, METH_VARARGS,
     "value(goal, target, played, leader, low, high, guess, deadline) -> (lower, upper, done)"},
    {"lead_values", (PyCFunction)Core_lead_values, METH_VARARGS,
     "lead_values(target, played, leader, guess, deadline, forced_win, staying) -> "
     "(((lead, lower, upper, win_lower, win_upper), ...), done)"},
    {"cancel", (PyCFunction)Core_cancel, METH_NOARGS,
     "cancel(): stop every search of this Core, now and to come"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Core_getset[] = {
    {"nodes", (getter)Core_nodes, NULL, "nodes searched so far", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "popejoan_solver.search._core.Core",
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Compiled search over one deal's slot-space tables.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Core_init,
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_methods = Core_methods,
    .tp_getset = Core_getset,
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "_core", "Compiled core of the fast Pope Joan engine.", -1, NULL,
    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__core(void) {
    if (!tt_cache_lock && !(tt_cache_lock = PyThread_allocate_lock())) return PyErr_NoMemory();
    if (PyType_Ready(&CoreType) < 0) return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (!m) return NULL;
    Py_INCREF(&CoreType);
    /* The ids the Python side passes: tests/model/test_table.py checks them against its tables. */
    if (PyModule_AddIntConstant(m, "GOAL_GUARANTEED", GOAL_GUARANTEED) < 0 ||
        PyModule_AddIntConstant(m, "GOAL_FORCED_WIN", GOAL_FORCED_WIN) < 0 ||
        PyModule_AddIntConstant(m, "GOAL_BEST_CASE", GOAL_BEST_CASE) < 0 ||
        PyModule_AddIntConstant(m, "LEAD_ANY", LEAD_ANY) < 0 ||
        PyModule_AddIntConstant(m, "LEAD_LOWEST_OF_SUIT", LEAD_LOWEST_OF_SUIT) < 0 ||
        PyModule_AddIntConstant(m, "LEAD_LOWEST_IN_HAND", LEAD_LOWEST_IN_HAND) < 0 ||
        PyModule_AddIntConstant(m, "CHOICE_SPIN", CHOICE_SPIN) < 0 ||
        PyModule_AddIntConstant(m, "CHOICE_IN_LIEU", CHOICE_IN_LIEU) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
