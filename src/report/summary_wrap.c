#include "report_parts.h"

/* Every summary line fits a 100-column terminal: longer text is wrapped
 * at spaces, the rest indented (a word longer than the line is cut into
 * pieces, never lost). */
void summary_emit_wrapped(const char *text, size_t indent, bool screen, void (*emit)(const char *, bool))
{
	char line[SUMMARY_COLUMNS + 1];
	size_t n = str_len(text), at = 0, lead = 0;

	while (at < n) {
		size_t room = SUMMARY_COLUMNS - lead, take = n - at;
		if (take > room) {
			take = room;
			/* back up to the last space that fits */
			while (take > 0 && text[at + take] != ' ')
				take--;
			if (!take)
				take = room;
		}
		for (size_t i = 0; i < lead; i++)
			line[i] = ' ';
		for (size_t i = 0; i < take; i++)
			line[lead + i] = text[at + i];
		line[lead + take] = 0;
		emit(line, screen);
		at += take;
		while (at < n && text[at] == ' ')
			at++;
		lead = indent;
	}
}
