# The line rules of PGN export format that ply promises (issue 30), checked on a PGN file
# apart from ply's own reader: every line but a tag pair has at most 79 characters (bytes:
# run it with LC_ALL=C), and no [%...] command of a comment (lichess's [%eval], [%clk])
# is split across lines. A command runs from "[%" to the next ']' inside its brace comment;
# a "[%" that the comment's '}' ends first is plain text, and may be split.
# Prints one line per fault, "FILE:LINE: why", and exits 1 if any.
# Usage: LC_ALL=C awk -f pgn_lines.awk FILE.pgn
{
    sub(/\r$/, "")
    if (!comment && substr($0, 1, 1) == "[") next # a tag pair: one line whatever its length
    if (length($0) > 79) {
        print FILENAME ":" FNR ": line of " length($0) " characters"
        bad = 1
    }
    for (i = 1; i <= length($0); i++) {
        c = substr($0, i, 1)
        if (!comment) {
            if (c == ";") break # the rest of the line is a comment
            if (c == "{") comment = 1
        } else if (c == "}") {
            comment = command = 0 # a '}' ends the comment, a "[%" in it never closed
        } else if (command) {
            if (c == "]") {
                if (command_line != FNR) {
                    print FILENAME ":" command_line ": a [%...] command split across lines"
                    bad = 1
                }
                command = 0
            }
        } else if (c == "[" && substr($0, i + 1, 1) == "%") {
            command = 1
            command_line = FNR
        }
    }
}
END { exit bad }
