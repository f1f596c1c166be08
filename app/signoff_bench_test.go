package app

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkSignoffVerification measures a warm re-verification of seed
// 004's sign-off (an edit of the comment, as a signer fixing a typo does):
// webhook to verdict and status, through the fake API. calls/op is the
// GitHub calls one verification makes once the trees are cached.
func BenchmarkSignoffVerification(b *testing.B) {
	h := newHarness(b, atDate(seed004Day.Add(13*time.Hour)))
	sd := serveSeed004(b, h, nil)
	body := string(readFile(b, filepath.Join(seed004Fixture, "signoff.md")))
	c := h.fake.AddComment(sd.pr.Base, sd.pr.Number, fakeComment("Ankur-singh", "COLLABORATOR", body, seed004Signoff))
	h.deliver("issue_comment", issueCommentPayload(b, h, sd.pr, c, "created", ""), http.StatusAccepted)
	h.wait()
	h.fake.ResetCalls()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e, err := h.fake.EditComment(sd.pr.Base, c.GetID(), body, seed004Signoff)
		if err != nil {
			b.Fatal(err)
		}
		h.deliver("issue_comment", issueCommentPayload(b, h, sd.pr, e, "edited", body), http.StatusAccepted)
		h.wait()
	}
	b.StopTimer()
	b.ReportMetric(float64(len(h.fake.Calls()))/float64(b.N), "calls/op")
}
