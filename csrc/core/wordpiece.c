/* csrc/core/wordpiece.c: see wordpiece.h. */
#include "wordpiece.h"

int
wordpiece_init(WordPiece *model, size_t expected, ptrdiff_t max_chars)
{
    model->longest_start = model->longest_continuation = 0;
    model->max_chars = max_chars;
    if (piece_map_init(&model->starts, expected) < 0) return -1;
    if (piece_map_init(&model->continuations, expected) < 0) {
        piece_map_free(&model->starts);
        return -1;
    }
    return 0;
}

void
wordpiece_free(WordPiece *model)
{
    piece_map_free(&model->starts);
    piece_map_free(&model->continuations);
}

static int
starts_with(const CodePoints *token, const CodePoints *prefix)
{
    if (token->length < prefix->length) return 0;
    for (ptrdiff_t i = 0; i < prefix->length; i++)
        if (code_point_at(token->kind, token->data, i) != code_point_at(prefix->kind, prefix->data, i)) return 0;
    return 1;
}

static int
add_to(PieceMap *map, ptrdiff_t *longest, const CodePoints *piece, int64_t slot)
{
    if (piece->length <= 0) return 0;
    if (piece_map_add(map, piece, code_points_hash(piece), slot) < 0) return -1;
    if (piece->length > *longest) *longest = piece->length;
    return 0;
}

int
wordpiece_add(WordPiece *model, const CodePoints *token, const CodePoints *prefix, int64_t slot)
{
    if (add_to(&model->starts, &model->longest_start, token, slot) < 0) return -1;
    if (!starts_with(token, prefix)) return 0;
    CodePoints rest = code_points_slice(token, prefix->length, token->length - prefix->length);
    return add_to(&model->continuations, &model->longest_continuation, &rest, slot);
}

int
wordpiece_segment(const WordPiece *model, const CodePoints *word, Int64s *slots)
{
    ptrdiff_t n = word->length, start = 0;
    ptrdiff_t slots_before = slots->length;
    while (n <= model->max_chars && start < n) {
        const PieceMap *map = start ? &model->continuations : &model->starts;
        ptrdiff_t longest = start ? model->longest_continuation : model->longest_start;
        ptrdiff_t end = n - start < longest ? n : start + longest;
        const int64_t *slot = NULL;
        for (; end > start; end--) {
            CodePoints piece = code_points_slice(word, start, end - start);
            slot = piece_map_get(map, &piece, code_points_hash(&piece));
            if (slot) break;
        }
        if (end == start) break;
        if (int64s_push(slots, *slot) < 0) return -1;
        start = end;
    }
    if (start == n && n <= model->max_chars) return 0;
    slots->length = slots_before; /* the word is unknown as a whole */
    return 1;
}
