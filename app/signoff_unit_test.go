package app

import (
	"testing"

	"github.com/reviewbot-dev/reviewbot/app/standing"
)

func TestSourceMarker(t *testing.T) {
	for _, tt := range []struct {
		source string
		id     int64
	}{{standing.Comment, 12}, {standing.Review, 9_000_000_001}, {standing.ReviewComment, 7}} {
		src, id, ok := parseSourceMarker("## x\n" + sourceMarker(tt.source, tt.id) + "\n")
		if !ok || src != tt.source || id != tt.id {
			t.Errorf("%s %d: got %q %d %v", tt.source, tt.id, src, id, ok)
		}
	}
	if _, _, ok := parseSourceMarker("<!-- reviewbot:signoff-source issue=3 -->"); ok {
		t.Error("an unknown source parsed")
	}
}
