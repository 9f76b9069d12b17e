/*
 * dice.h: tabula-dice-1, the dice every player can check (docs/dice-protocol.md).
 *
 * A game's dice come from a SHA-256 hash chain: a secret x_N drawn with
 * getrandom(2), x_(j-1) = SHA-256(x_j), the commitment x_0 mailed before any
 * player accepts. Roll i of a game is keyed by the next unrevealed x_j and the
 * players' entropy E:
 *
 *   block_b = HMAC-SHA256(x_j, "tabula-dice-1|" game "|" i "|" E "|" b), b = 0, 1, ...
 *
 * and each byte below 252 gives a face (byte mod 6 + 1). This module only
 * computes and checks; the service decides when to roll and stores the chain
 * (store_dice), and the rules core receives the faces as events.
 *
 * Numbering across chains (the protocol leaves it open; decided here):
 * roll numbers i count over the whole game and are what goes into the HMAC
 * message. Chain 1 covers rolls 1..N_1, chain c covers the N_c rolls after
 * those of chains 1..c-1, i.e. (c-1)*N+1 .. c*N when every chain has the same
 * N (the service's case). Roll i of chain c uses key index
 * j = i - (first roll of chain c) + 1 and is checked against x_(j-1) of that
 * chain: the key printed with roll i-1, or chain c's commitment when j = 1.
 *
 * Hex is lower case both ways: ref_dice_unhex refuses upper case so that one
 * value has one spelling, which the transcript verifier relies on when it
 * compares duplicated lines.
 */
#ifndef TABULA_DICE_H
#define TABULA_DICE_H

#include <stddef.h>
#include <stdint.h>

/* The first version's name: it starts the HMAC message of every face in
 * both versions (the faces did not change) and names the version of a
 * game whose entropy was fixed before the second existed. */
#define REF_DICE_PROTOCOL "tabula-dice-1"
/* The second version (docs/dice-protocol.md, "Versions"): a seat's entropy
 * taken from a Message-ID is published as its keyed digest. */
#define REF_DICE_PROTOCOL_2 "tabula-dice-2"
#define REF_DICE_DEFAULT_N 4096
/* Most faces one roll line may print (a backgammon roll needs 2). */
#define REF_DICE_MAX_FACES 16

/* A hash chain. secret is x_N: it never goes to a log or a mail. */
struct ref_dice_chain {
  uint8_t secret[32];
  uint8_t commitment[32]; /* x_0 */
  int n;                  /* N */
};

/* Draws a fresh secret with getrandom(2) and computes the commitment.
 * n <= 0 means REF_DICE_DEFAULT_N. Returns 0, or -1 when the system gives no
 * randomness (then *out is zeroed). */
int ref_dice_chain_new(struct ref_dice_chain *out, int n);
/* The same from a known secret: tests, and reloading a chain from the store. */
void ref_dice_chain_from_secret(struct ref_dice_chain *out, const uint8_t secret[32], int n);
/* x_j, the key revealed with the chain's j-th roll (0 <= j <= n; j = 0 gives
 * the commitment). Costs n - j hashes. Out-of-range j is clamped into 0..n. */
void ref_dice_key(uint8_t out[32], const struct ref_dice_chain *c, int j);

/* E = hex(SHA-256(e_1 "\n" e_2 ... "\n" e_k)), the seats' strings in seat order. */
void ref_dice_entropy(char out_hex[65], const char *const *e, size_t k);
/* tabula-dice-2: a game's salt, hex(HMAC-SHA256(key = x_N of its first
 * chain, "tabula-dice-2 salt")). Fixed with the chain, before anyone
 * accepts, so nobody can choose it after seeing a Message-ID; mailed to
 * the players only. */
void ref_dice_salt(char out_hex[65], const uint8_t secret[32]);
/* tabula-dice-2: the e_s of a mail without entropy text, "mid:" followed by
 * hex(HMAC-SHA256(key = the salt's 64 hex characters, message = the
 * Message-ID exactly as received)); out holds at least 69 bytes. */
void ref_dice_mid_entropy(char *out, size_t cap, const char *salt_hex, const char *message_id);

/* The first nfaces faces (1..6) of roll i of game `game` (its id as printed,
 * e.g. "7") keyed by `key` (x_j) with entropy E_hex. Returns 0, or -1 on bad
 * arguments (nfaces < 1, a NULL string). */
int ref_dice_faces(int *faces, int nfaces, const uint8_t key[32], const char *game, long i,
                   const char *E_hex);

/* 0 when SHA-256(key) == prev (key is the chain's next link after prev), else -1. */
int ref_dice_check_key(const uint8_t key[32], const uint8_t prev[32]);
/*
 * Private future faces (Lag Backgammon Chess, LG-1): the faces of the roll
 * `ahead` rolls after the next one, for one player's eyes only. Only faces
 * come out, never x_j: hashing a key yields every earlier key, among them
 * the opponent's unplayed rolls (dice-protocol.md). When the roll is made,
 * its key is published as usual and the opponent checks the faces shown in
 * advance. `next_index` is the chain's next key index, `next_roll` the
 * game's next roll number. Returns -1 when the roll lies beyond this chain
 * (the service must draw and commit the next chain first).
 */
int ref_dice_peek(int *faces, int nfaces, const struct ref_dice_chain *c, int next_index,
                  long next_roll, int ahead, const char *game, const char *E_hex);

/* Lower-case hex of len bytes into out (2*len+1 bytes, NUL-terminated). */
void ref_dice_hex(char *out, const uint8_t *in, size_t len);
/* Decodes exactly 2*len lower-case hex digits followed by NUL. Returns 0, or
 * -1 on a wrong length or a character outside [0-9a-f]. */
int ref_dice_unhex(uint8_t *out, size_t len, const char *hex);

/*
 * Transcript verification. `text` is mail text (e.g. every outbox mail of a
 * game concatenated). Lines are first stripped of leading spaces, tabs and '>'
 * (quoted or forwarded mails) and of trailing spaces, tabs and CR. A line that
 * then starts with "Dice commitment:", "Dice entropy:" or "Dice roll:" must
 * match one of (SP = one or more spaces; G = [0-9]{1,20}; C, N, I, K =
 * [1-9][0-9]{0,8}; HEX = [0-9a-f]{64}; F = [0-9]):
 *
 *   Dice commitment: SP V SP game SP G SP chain SP C SP N SP N SP commitment SP HEX
 *                                  (V = tabula-dice-1 or tabula-dice-2)
 *   Dice entropy: SP game SP G SP eK [" " VALUE]    VALUE = the rest of the line, exactly
 *   Dice entropy: SP game SP G SP E SP HEX
 *   Dice roll: SP game SP G SP chain SP C SP roll SP I SP key SP HEX SP faces (SP F){1,16}
 *
 * or the text fails ("line L: malformed dice line"). A fact may be repeated
 * (the same line in several mails); repeats must agree. Checks, in this order,
 * the first failure being reported in `why`:
 *   1. one game (or `game` when given) has dice lines;
 *   2. no conflicting commitment of a chain, e_K or E;
 *   3. e_1..e_k have no gap; E computed from them equals the printed E (if
 *      printed); with no e_K at all E is the printed one (a published record
 *      of a tabula-dice-1 game, whose entropy lines were Message-IDs and stay
 *      in the players' mails), and without either there may be no roll;
 *   4. for i = 1 .. the highest roll printed: roll i is present, lies in its
 *      chain's range, its key hashes to the previous key (or to the chain's
 *      commitment), and its printed faces are those computed.
 * A roll missing at the end cannot be seen; the caller knows how many rolls
 * the game made and compares with *nrolls.
 */
/* The only game in text. Returns 0 with *nrolls (the highest roll number)
 * when every roll verifies, else -1 with the reason in why ("roll 5: key does
 * not hash to the previous key"). why may be NULL; cap is its size. */
int ref_dice_verify_text(const char *text, int *nrolls, char *why, size_t cap);
/* The same for game `game` (decimal id as printed) among several; NULL = the
 * only game present. */
int ref_dice_verify_game(const char *text, const char *game, int *nrolls, char *why, size_t cap);

#endif /* TABULA_DICE_H */
