package markdown

import "unicode"

func isSpace(r rune) bool {
	if r < 0x80 {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v'
	}
	return unicode.IsSpace(r)
}

func isLetter(r rune) bool {
	if r < 0x80 {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	return unicode.IsLetter(r) || unicode.IsMark(r)
}

func isDigit(r rune) bool {
	if r < 0x80 {
		return '0' <= r && r <= '9'
	}
	return unicode.IsDigit(r)
}
