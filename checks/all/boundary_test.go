package all

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportBoundaries keeps data flowing one way: the check library (the
// sign-off evaluators that `reviewbot verify-signoff` runs locally among
// it) and the reviewer never reach the network or the App.
func TestImportBoundaries(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not on PATH")
	}
	forbidden := []string{
		"github.com/reviewbot-dev/reviewbot/app",
		"github.com/google/go-github",
		"net/http",
		"github.com/go-chi/chi",
		"github.com/redis/go-redis",
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}",
		"github.com/reviewbot-dev/reviewbot/checks/...", "github.com/reviewbot-dev/reviewbot/reviewer").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	check := func(scope string, deps []string) {
		for _, d := range deps {
			for _, f := range forbidden {
				if d == f || strings.HasPrefix(d, f+"/") {
					t.Errorf("%s depends on %s", scope, d)
				}
			}
		}
	}
	check("checks and reviewer", strings.Fields(string(out)))
}
