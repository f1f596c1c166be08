package all

import (
	"path/filepath"
	"testing"
)

// TestSuppressionFixtures checks what TestFixtures cannot see: that the
// suppression fixture's silence comes from its comment (the same change
// without a reason reports the finding, see rb002-ignore-without-reason).
func TestSuppressionFixtures(t *testing.T) {
	for name, want := range map[string]int{
		"rb-suppressed-with-reason":   1,
		"rb002-ignore-without-reason": 0,
	} {
		t.Run(name, func(t *testing.T) {
			_, res := runFixture(t, filepath.Join(fixturesDir, name))
			if res.Stats.Suppressed != want {
				t.Errorf("suppressed %d findings, want %d (findings: %+v)", res.Stats.Suppressed, want, res.Findings)
			}
		})
	}
}
