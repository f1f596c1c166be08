package app

import (
	"strings"

	"github.com/reviewbot-dev/reviewbot/reviewer"
)

// hasSignoff reports whether a comment or review body carries the
// CODEOWNER sign-off phrase that starts sign-off verification.
func hasSignoff(body string) bool { return strings.Contains(body, reviewer.SignoffPhrase) }

// signoffUnsupported is the outcome of a sign-off delivery in this
// version: the App recognizes sign-offs but does not verify them yet, and
// says so in its log rather than staying silent.
const signoffUnsupported = "sign-off phrase seen; sign-off verification is not part of this version"
