package prtree

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/all"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
)

const fixturesDir = "../../testdata/prs"

// TestAppFindingsEqualCLIFindings reviews every fixture PR three ways —
// as the CLI does (the fixture's trees, diffed locally), and as the App
// does through the fake GitHub with the merge base read as a tarball and
// read by tree and blob calls — and requires the same findings, errors
// and files not reviewed.
func TestAppFindingsEqualCLIFindings(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(fixturesDir, "*", "pr.json"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	if testing.Short() {
		dirs = dirs[:min(len(dirs), 12)]
	}
	reg, err := all.Registry()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	date := time.Date(2026, 8, 21, 0, 0, 0, 0, time.UTC)
	for _, p := range dirs {
		dir := filepath.Dir(p)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			fx, err := trees.LoadFixture(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			if !fx.Date.IsZero() {
				date = fx.Date
			}
			fake, gh := fakeWithToken(t)
			pr, err := fake.AddPR(ctx, fakegithub.PRSpec{Repo: "SemiAnalysisAI/InferenceX", Number: max(fx.PR.Number, 1),
				Base: fx.Base, Head: fx.Head, Title: fx.PR.Title, Body: fx.PR.Body, Author: fx.PR.Author, Labels: fx.PR.Labels})
			if err != nil {
				t.Fatal(err)
			}
			prJSON, err := fake.PRJSON(ctx, pr)
			if err != nil {
				t.Fatal(err)
			}
			var app [2]string
			var info checks.PRInfo
			for i, archiveBytes := range []int64{DefaultArchiveBytes, 0} {
				caches := NewCaches(state.NewBlobCache(64<<20, nil), nil, 8<<20, 4, nil)
				caches.SetArchiveBytes(archiveBytes)
				l := &Loader{Caches: caches, MergeBases: state.NewLRU("merge_base", 1<<20, state.StringEntryBytes, nil),
					Now: func() time.Time { return date }}
				lc, err := l.Load(ctx, gh, prJSON)
				if err != nil {
					t.Fatal(err)
				}
				res, err := checks.Review(ctx, reg, lc.Change)
				if err != nil {
					t.Fatal(err)
				}
				app[i], info = outcome(t, res), lc.Change.PR
			}
			if n := len(fake.CallsTo(fakegithub.RouteTarball)); n != 1 {
				t.Errorf("%d tarball calls, want 1 (the App's first load)", n)
			}
			ch := fx.Change()
			ch.PR, ch.Date = info, date // the same PR, as GitHub describes it
			res, err := checks.Review(ctx, reg, ch)
			if err != nil {
				t.Fatal(err)
			}
			cli := outcome(t, res)
			if app[0] != cli {
				t.Errorf("App (tarball) and CLI differ:\nApp: %s\nCLI: %s", app[0], cli)
			}
			if app[1] != cli {
				t.Errorf("App (trees and blobs) and CLI differ:\nApp: %s\nCLI: %s", app[1], cli)
			}
		})
	}
}

// outcome is what a review reports, in a comparable form.
func outcome(t *testing.T, res *checks.Result) string {
	t.Helper()
	var errs []string
	for _, e := range res.Errors {
		errs = append(errs, e.Error())
	}
	b, err := json.Marshal(struct {
		Findings    []checks.Finding
		Errors      []string
		NotReviewed []checks.NotReviewed
	}{res.Findings, errs, res.NotReviewed})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
