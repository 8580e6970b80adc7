"""Which windows of a large file the fuzzy stage scores: those sharing rare words with the target.

Above a few hundred windows the fuzzy stage only scores the windows that share the most rare
words (or, failing words, three-letter pieces) with `old_string`. The files here are a
thousand copies of one filler line, whose words and pieces are far too common to tell windows
apart, with a few distinctive lines planted among them.
"""

from __future__ import annotations

from akgentic.tool.workspace import EditMatcher
from akgentic.tool.workspace._match_text import _Budget, _Lines
from akgentic.tool.workspace.fuzzy_match import _vote

FILLER = "the cat sat and the dog ran off " * 3  # 24 short words, 96 characters
SIZE = 1_000


def _file(planted: dict[int, str], *, final_newline: bool = True) -> str:
    lines = [planted.get(number, "    " + FILLER.rstrip()) for number in range(SIZE)]
    return "\n".join(lines) + ("\n" if final_newline else "")


def _edited_lines(content: str, old: str) -> list[int]:
    """0-based numbers of the lines `old` was replaced at (by the single word EDITED)."""
    result = EditMatcher().apply(content, old, "EDITED")
    assert result.strategy == "fuzzy"
    return [n for n, line in enumerate(result.content.split("\n")) if "EDITED" in line]


def test_a_typo_on_the_first_line_of_a_large_file_is_found() -> None:
    line = "configure_pipeline(primary_source, secondary_sink, retries=3)"
    content = _file({0: line})
    assert _edited_lines(content, line.replace("retries", "retires")) == [0]


def test_a_target_whose_rare_words_are_on_its_second_line_is_found() -> None:
    line = "    configure_pipeline(primary_source, secondary_sink, retries=3)"
    content = _file({400: line})
    old = "    " + FILLER.rstrip() + "\n" + line.replace("retries", "retires")
    assert _edited_lines(content, old) == [399]


def test_a_target_whose_rare_words_are_on_its_first_line_is_found() -> None:
    # the line opens with filler words, so its leading three-letter pieces are common too
    line = "    " + FILLER + "configure_pipeline(primary_source, secondary_sink, retries=3)"
    content = _file({600: line})
    old = line.replace("retries", "retires") + "\n    " + FILLER.rstrip()
    assert _edited_lines(content, old) == [600]


def test_a_word_of_the_target_on_the_files_last_line_does_not_derail_the_search() -> None:
    line = "configure_pipeline(primary_source, secondary_sink, retries=3)"
    content = _file(
        {300: line, SIZE - 1: "# configure_pipeline(primary_source, secondary_sink)"},
        final_newline=False,
    )
    old = line.replace("retries", "retires") + "\n    " + FILLER.rstrip()
    assert _edited_lines(content, old) == [300]


def test_misspelt_long_words_do_not_stop_the_search_for_the_others() -> None:
    words = "alpha_configuration beta_registry_builder gamma_endpoint_resolver"
    more = "delta_timeout_handler epsilon_retry_policy"
    line = f"    {FILLER}{words} {more} zeta = 1"
    content = _file({500: line})
    old = "\n".join(
        [
            "    " + FILLER.rstrip(),
            line.replace("configuration", "configuraton")
            .replace("registry", "regsitry")
            .replace("endpoint", "endpiont")
            .replace("timeout", "timeuot")
            .replace("retry", "rerty"),
        ]
    )
    assert _edited_lines(content, old) == [499]


def test_a_target_of_short_words_is_found_by_its_three_letter_pieces() -> None:
    line = "x = f(a, b) + g(c, d) * h(e, k) - m(n, p) / q(r, s)"
    content = _file({700: line})
    old = line.replace("x = ", "x := ") + "\n    " + FILLER.rstrip()
    assert _edited_lines(content, old) == [700]


def test_the_window_sharing_the_most_rare_words_is_scored_before_many_weaker_ones() -> None:
    # 30 later lines share three of the target's rare words; only line 100 has all of them
    shared = "shared_word_one shared_word_two shared_word_three"
    decoys = {200 + 10 * n: f"{shared} unrelated_{n}" for n in range(30)}
    line = f"{shared} exclusive_longest_word_here also_unique"
    content = _file({100: line, **decoys})
    assert _edited_lines(content, line.replace("also_unique", "also_uniqeu")) == [100]


# -- the vote itself ---------------------------------------------------------------------------


def _votes(content: str, probes: list[tuple[str, int]], total: int = 1_000) -> dict[int, int]:
    return _vote(_Lines(content, _Budget(10**9)), probes, total)


def test_a_word_seen_sixty_four_times_still_votes_and_one_seen_sixty_five_times_does_not() -> None:
    assert _votes("word\n" * 64, [("word", 0)]) == dict.fromkeys(range(64), 1)
    assert _votes("word\n" * 65, [("word", 0)]) == {}


def test_overlapping_occurrences_count_towards_the_cap() -> None:
    # "aa" occurs 65 times in 66 a's, overlapping: too common to tell windows apart
    assert _votes("a" * 66 + "\n", [("aa", 0)]) == {}
    assert _votes("a" * 65 + "\n", [("aa", 0)]) == {0: 1}


def test_each_informative_word_votes_once_and_only_five_of_them_vote() -> None:
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
    content = "filler\n" + " ".join(words) + "\n"
    probes = [("common", 0), *[(word, 1) for word in words]]
    # "common" occurs nowhere and is skipped; the first five found each add one vote
    assert _votes(content, probes) == {0: 5}


def test_a_vote_falls_on_the_window_that_would_hold_the_word_where_the_target_has_it() -> None:
    content = "".join(f"line {n}\n" for n in range(10)) + "needle\n"
    assert _votes(content, [("needle", 3)], total=8) == {7: 1}
    # a window that would start past the last possible one gets no vote
    assert _votes(content, [("needle", 0)], total=8) == {}


def test_windows_with_under_half_the_best_ones_votes_are_not_scored() -> None:
    old_lines = ["alpha_first_word", "beta_second", "gamma_3rd", "delta"]
    planted = {10: old_lines[0], 11: old_lines[1], 12: old_lines[2], 13: old_lines[3]}
    planted |= {50: old_lines[0], 51: old_lines[1], 90: old_lines[0]}
    content = "".join(planted.get(n, "filler") + "\n" for n in range(200))
    doc = _Lines(content, _Budget(10**9))
    # four votes for the window at 10, two for 50, one for 90: half of four is two
    assert _vote(doc, [(w, n) for n, w in enumerate(old_lines)], 197) == {10: 4, 50: 2, 90: 1}
    assert EditMatcher._likely_windows(doc, old_lines, 197) == [10, 50]


def test_a_minified_line_before_the_target_does_not_end_the_search() -> None:
    # a line past the fuzzy stage's length limit is skipped, not taken as the end of the file
    content = "x" * 10_001 + "\nconfig value = 42\nother = 1\n"
    result = EditMatcher().apply(content, "config valeu = 42", "config value = 43")
    assert result.strategy == "fuzzy"
    assert result.first_line == 2
    assert result.content == "x" * 10_001 + "\nconfig value = 43\nother = 1\n"
