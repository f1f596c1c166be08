package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks/convention"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// runConventions prints the beliefs CV001 mines from a tree, so a
// maintainer can see what the bot believes before it says so on a PR, and
// copy a belief's ID into .github/reviewbot.yml to confirm it.
func runConventions(args []string, stdout, stderr io.Writer) int {
	cmd := newCommand("conventions",
		"reviewbot conventions [--repo DIR] [--rev REV] [--engine E] [--format text|json]",
		"reviewbot conventions --tree DIR [--engine E] [--format text|json]")
	cmd.about = "Prints the beliefs CV001 mines from the recipes of each engine, in plain words, with their IDs."
	fs := cmd.fs
	src := addTreeSource(cmd, "mine")
	engine := fs.String("engine", "", "only the recipes of engine `E`: vllm, sglang, trt or atom (default: every engine)")
	format := fs.String("format", "text", "output `FORMAT`: text or json")
	cfgFile := fs.String("config", "", "use the configuration in `FILE` instead of the tree's .github/reviewbot.yml")
	pos, code, ok := cmd.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "reviewbot conventions:", oneLine(err))
		return exitError
	}
	eng := script.Engine(strings.ToLower(*engine))
	if err := src.check(cmd.set()); err != nil {
		return fail(err)
	}
	switch {
	case len(pos) > 0:
		return fail(fmt.Errorf("unexpected argument %q", pos[0]))
	case eng != "" && eng != script.VLLM && eng != script.SGLang && eng != script.TRTLLM && eng != script.ATOM:
		return fail(fmt.Errorf("unknown --engine %q (want vllm, sglang, trt or atom)", *engine))
	case *format != "text" && *format != "json":
		return fail(fmt.Errorf("unknown --format %q (want text or json)", *format))
	}

	ctx := context.Background()
	tree, source, closeTree, err := src.open(ctx, stderr)
	if err != nil {
		return fail(err)
	}
	defer closeTree()
	cfg, err := configFlag(*cfgFile)
	if err != nil {
		return fail(err)
	}
	rep, err := convention.Mine(ctx, tree, cfg, eng)
	if err != nil {
		return fail(err)
	}
	if *format == "json" {
		if rep.Engines == nil {
			rep.Engines = []convention.EngineBeliefs{}
		}
		for i := range rep.Engines {
			if rep.Engines[i].Conventions == nil {
				rep.Engines[i].Conventions = []convention.Convention{}
			}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		// Belief IDs hold "=>", which a maintainer copies into the config.
		enc.SetEscapeHTML(false)
		if err := enc.Encode(struct {
			Thresholds convention.Thresholds `json:"thresholds"`
			*convention.Report
		}{convention.DefaultThresholds, rep}); err != nil {
			return fail(err)
		}
		return exitOK
	}
	writeConventionsText(stdout, source, rep)
	return exitOK
}

func writeConventionsText(w io.Writer, source string, rep *convention.Report) {
	engines := rep.Engines
	if len(engines) == 0 {
		fmt.Fprintln(w, "no recipes found")
		return
	}
	fmt.Fprintf(w, "What CV001 believes about the recipes of %s. Recipes under deprecated/ are left out, and the\n"+
		"recipes of one model family (one model on one vendor's hardware) count once, as copies of one another.\n"+
		"A belief is reported as a warning; list its id under conventions.confirmed in .github/reviewbot.yml\n"+
		"to make it blocking.\n", source)
	for _, e := range engines {
		fmt.Fprintf(w, "\n%s: %d recipes in %d model families, %d conventions\n", e.Engine, e.Recipes, e.Families, len(e.Conventions))
		for i, c := range e.Conventions {
			fmt.Fprintf(w, "\n  %d. %s\n", i+1, plain(c.Statement))
			fmt.Fprintf(w, "     %s\n", plain(c.Evidence))
			lead := c.Beliefs[0]
			fmt.Fprintf(w, "     Seen in: %s\n", witnessList(lead.Followers))
			if len(lead.Exceptions) > 0 {
				fmt.Fprintf(w, "     Not in: %s\n", witnessList(lead.Exceptions))
			}
			confirmed := false
			for _, b := range c.Beliefs {
				confirmed = confirmed || b.Confirmed
			}
			switch {
			case confirmed:
				fmt.Fprintln(w, "     Confirmed in the configuration: its findings block.")
			case c.JudgedBy != "":
				fmt.Fprintf(w, "     %s judges this, so CV001 does not report it.\n", c.JudgedBy)
			}
			const maxIDs = 4
			for i, b := range c.Beliefs {
				if i == maxIDs {
					fmt.Fprintf(w, "     and %d more ids (--format json lists them all)\n", len(c.Beliefs)-maxIDs)
					break
				}
				fmt.Fprintf(w, "     id: %s\n", b.ID)
			}
		}
	}
	if len(rep.Unmatched) > 0 {
		fmt.Fprintf(w, "\nConfirmed in the configuration but not a belief here (a typo, or no longer supported by the recipes):\n")
		for _, id := range rep.Unmatched {
			fmt.Fprintf(w, "  %s\n", id)
		}
	}
}

// plain drops markdown code marks for the terminal.
func plain(s string) string { return strings.ReplaceAll(s, "`", "") }

// witnessList renders one recipe per model family ("a.sh:12, b.sh:40,
// and 3 more recipes").
func witnessList(ws []convention.Witness) string {
	const max = 5
	var parts []string
	seen := map[string]bool{}
	shown := 0
	for _, wt := range ws {
		if seen[wt.Family] || len(parts) == max {
			continue
		}
		seen[wt.Family] = true
		shown++
		s := fmt.Sprintf("%s:%d", wt.Path, wt.Line)
		if wt.Changed {
			s += " (changed in this PR)"
		}
		parts = append(parts, s)
	}
	if rest := len(ws) - shown; rest > 0 {
		parts = append(parts, fmt.Sprintf("and %d more recipes", rest))
	}
	return strings.Join(parts, ", ")
}
