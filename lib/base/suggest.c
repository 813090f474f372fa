/* suggest.c: the one "did you mean" rule, for mistyped commands, options
 * and configuration keys. */
#include "base/base_int.h"

#include <stdint.h>
#include <string.h>

#define NAME_MAX_LEN 32

/* Optimal string alignment distance: edits, with a swap of two
 * neighbouring letters counting as one (the commonest typo). */
static size_t
edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t d[NAME_MAX_LEN + 1][NAME_MAX_LEN + 1];

	if (la > NAME_MAX_LEN || lb > NAME_MAX_LEN)
		return SIZE_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t best = d[i - 1][j - 1] + cost;
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

void
cv_suggest_consider(struct cv_suggest *s, const char *name)
{
	size_t dist = edit_distance(s->typed, name);

	if (dist < s->dist) {
		s->best = name;
		s->dist = dist;
	}
}

const char *
cv_suggest_result(const struct cv_suggest *s)
{
	size_t len = strlen(s->typed);
	/* close only: one edit for short words, two from five letters on,
	 * and never most of the word (so 'x' suggests nothing) */
	size_t limit = len >= 5 ? 2 : 1;

	if (s->best == NULL || s->dist > limit || s->dist * 2 > len)
		return NULL;
	return s->best;
}
