package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline"
)

// runPipeline prints what runs for a config key: each row, the job it
// becomes, its runners and launcher, and the script or recipe it reaches
// with the values that flow in. Without a key it prints what the model
// read and the rows that run no benchmark.
func runPipeline(args []string, stdout, stderr io.Writer) int {
	cmd := newCommand("pipeline",
		"reviewbot pipeline [--repo DIR] [--rev REV | --tree DIR | --fixture DIR [--base]] [--format text|json] [KEY...]")
	cmd.about = "Follows config rows through the workflow template, their runners' launchers and the script or recipe they run.\n" +
		"KEY is a config key or a shell glob (dsv4-fp4-*); without one, prints an overview and the rows that run no benchmark."
	fs := cmd.fs
	src := addTreeSource(cmd, "read")
	format := fs.String("format", "text", "output `FORMAT`: text or json")
	cfgFile := fs.String("config", "", "use the configuration in `FILE` instead of the tree's .github/reviewbot.yml")
	keys, code, ok := cmd.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "reviewbot pipeline:", oneLine(err))
		return exitError
	}
	if err := src.check(cmd.set()); err != nil {
		return fail(err)
	}
	if *format != "text" && *format != "json" {
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
	ch := &checks.Change{Base: checks.NewCachedTree(tree), Config: cfg}
	ch.Head = ch.Base
	if err := ch.Configure(ctx, nil); err != nil {
		return fail(err)
	}
	m, err := pipeline.Build(ctx, ch.Base, ch.Config, checks.NewParseCache(0))
	if err != nil {
		return fail(err)
	}
	if len(keys) == 0 {
		return writeOverview(stdout, source, m, *format)
	}
	var reports []pipeline.RowReport
	for _, k := range keys {
		got := m.Describe(k)
		if len(got) == 0 {
			return fail(fmt.Errorf("no config key matches %q", k))
		}
		reports = append(reports, got...)
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(reports); err != nil {
			return fail(err)
		}
		return exitOK
	}
	writeRowReports(stdout, reports)
	return exitOK
}

func writeOverview(w io.Writer, source string, m *pipeline.Model, format string) int {
	var broken []pipeline.RowReport
	m.ResolveAll()
	for _, r := range m.Rows {
		for _, l := range m.Resolve(r).Groups {
			if pipeline.LaunchBroken(m, l) {
				broken = append(broken, m.Describe(r.Key.Name)...)
				break
			}
		}
	}
	templates := map[string]string{}
	for kind, t := range m.Templates {
		src := t.Path
		if err := m.TemplateErr[kind]; err != nil {
			src += " (" + oneLine(err) + ")"
		}
		templates[kind.String()] = src
	}
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(map[string]any{"source": source, "rows": len(m.Rows), "templates": templates,
			"launchers": m.Launchers, "broken": broken})
		return exitOK
	}
	var configs []string
	for _, c := range m.Configs {
		configs = append(configs, c.Path)
	}
	fmt.Fprintf(w, "Pipeline of %s\n", source)
	fmt.Fprintf(w, "  master configs: %s (%d rows)\n", strings.Join(configs, ", "), len(m.Rows))
	fmt.Fprintf(w, "  single-node env: %s\n  multi-node env:  %s\n", templates["single-node"], templates["multi-node"])
	if m.Sweep != nil {
		fmt.Fprintf(w, "  inputs from: %s (%d template calls)\n", m.Sweep.Path, len(m.Sweep.Jobs))
	}
	if m.Generator != nil {
		fmt.Fprintf(w, "  sweep generator: %s (DRAM cap %d MiB)\n", m.Generator.Path, m.Generator.MaxAgenticDRAMMiB)
	}
	if m.Runners != nil {
		fmt.Fprintf(w, "  runner labels: %s (%d labels)\n", m.Runners.Path, len(m.Runners.Labels))
	}
	fmt.Fprintf(w, "  launchers: %d\n", len(m.Launchers))
	seen := map[string]bool{}
	var lines []string
	for _, r := range broken {
		k := r.Key + fmt.Sprint(r.Line)
		if seen[k] {
			continue
		}
		seen[k] = true
		lines = append(lines, fmt.Sprintf("  %s (%s:%d)", r.Key, r.File, r.Line))
	}
	if len(lines) == 0 {
		fmt.Fprintln(w, "\nEvery row reaches a benchmark on every runner group (or a path the bot cannot follow).")
		return exitOK
	}
	fmt.Fprintf(w, "\nRows that run no benchmark on some runner group (%d):\n%s\n", len(lines), strings.Join(lines, "\n"))
	return exitOK
}

func writeRowReports(w io.Writer, reports []pipeline.RowReport) {
	lastKey := ""
	for _, r := range reports {
		if r.Key != lastKey {
			if lastKey != "" {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "%s\n", r.Key)
			fmt.Fprintf(w, "  env from %s; inputs from job %s\n", r.Template, r.Job)
			lastKey = r.Key
		}
		fmt.Fprintf(w, "\n  row %s:%d (%s): %s\n", r.File, r.Line, r.Scenario, r.Fields)
		var env []string
		for _, v := range r.Env {
			env = append(env, v.Name+"="+v.Value)
		}
		fmt.Fprintf(w, "    env: %s\n", strings.Join(env, " "))
		for _, l := range r.Launches {
			runners := strings.Join(l.Runners, ", ")
			if len(l.Runners) > 3 {
				runners = fmt.Sprintf("%s … %s (%d machines)", l.Runners[0], l.Runners[len(l.Runners)-1], len(l.Runners))
			}
			guessed := ""
			if l.Guessed {
				guessed = " (label not in the runner list; machines guessed from the launchers)"
			}
			fmt.Fprintf(w, "    %s: %s%s → %s\n", l.Label, runners, guessed, orDash(l.Launcher))
			if l.Error != "" {
				fmt.Fprintf(w, "      error: %s\n", l.Error)
				continue
			}
			state := fmt.Sprintf("%d paths", l.Paths)
			if l.Paths == 1 {
				state = "1 path"
			}
			if !l.Complete {
				state += ", not all followed"
			}
			if l.Broken {
				state += ", RUNS NO BENCHMARK"
			}
			fmt.Fprintf(w, "      %s\n", state)
			for _, t := range l.Targets {
				mark := "exists"
				if !t.Exists {
					mark = "MISSING"
				}
				fmt.Fprintf(w, "      runs %s %s (%s) at %s\n", t.Kind, t.Path, mark, t.At)
				if len(t.From) > 0 {
					fmt.Fprintf(w, "        path computed at %s\n", strings.Join(t.From, ", "))
				}
				if d := envDiff(r.Env, t.Gets); d != "" {
					fmt.Fprintf(w, "        gets %s\n", d)
				}
				if len(t.Uses) > 0 {
					fmt.Fprintf(w, "        reads %s\n", strings.Join(t.Uses, ", "))
				}
				for _, c := range t.Commands {
					fmt.Fprintf(w, "        starts %s\n", c)
				}
				if len(t.Passes) > 0 {
					fmt.Fprintf(w, "        passes to programs: %s\n", strings.Join(t.Passes, ", "))
				}
				if len(t.Domain) > 0 {
					rows := fmt.Sprintf("the %d rows", t.Rows)
					if t.Rows == 1 {
						rows = "the row"
					}
					fmt.Fprintf(w, "        over %s that run it: %s\n", rows, strings.Join(t.Domain, " "))
				}
				for _, q := range t.Checks {
					fmt.Fprintf(w, "        checks %s\n", q)
				}
				for _, q := range t.Requires {
					fmt.Fprintf(w, "        requires %s\n", q)
				}
				for _, s := range t.Recipe {
					fmt.Fprintf(w, "        recipe %s\n", s)
				}
			}
			if len(l.Exits) > 0 {
				fmt.Fprintf(w, "      other paths exit at %s\n", groupExits(l.Exits))
			}
			for _, u := range l.External {
				fmt.Fprintf(w, "      a path runs %s (outside the tree: a checkout the launcher makes)\n", u)
			}
			for _, u := range l.Unknown {
				fmt.Fprintf(w, "      a path runs %s (not resolved)\n", u)
			}
		}
	}
}

// groupExits writes "f:1 (status 1)", "f:9 (status 1)" as
// "f lines 1, 9 (status 1)".
func groupExits(exits []string) string {
	type group struct {
		key   string
		lines []string
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, e := range exits {
		loc, status, _ := strings.Cut(e, " ")
		file, line, ok := strings.Cut(loc, ":")
		if !ok {
			file, line = loc, ""
		}
		k := file + "\x00" + status
		g := byKey[k]
		if g == nil {
			g = &group{key: k}
			byKey[k] = g
			groups = append(groups, g)
		}
		if line != "" {
			g.lines = append(g.lines, line)
		}
	}
	var parts []string
	for _, g := range groups {
		file, status, _ := strings.Cut(g.key, "\x00")
		switch len(g.lines) {
		case 0:
			parts = append(parts, file+" "+status)
		case 1:
			parts = append(parts, file+":"+g.lines[0]+" "+status)
		default:
			parts = append(parts, file+" lines "+strings.Join(g.lines, ", ")+" "+status)
		}
	}
	return strings.Join(parts, "; ")
}

// envDiff says how the env a script gets differs from the job's.
func envDiff(job []pipeline.VarReport, gets []string) string {
	had := map[string]string{}
	for _, v := range job {
		had[v.Name] = v.Value
	}
	var diff []string
	got := map[string]bool{}
	for _, g := range gets {
		name, val, _ := strings.Cut(g, "=")
		got[name] = true
		if old, ok := had[name]; !ok || old != val {
			diff = append(diff, g)
		}
	}
	for _, v := range job {
		if !got[v.Name] {
			diff = append(diff, v.Name+" (not passed)")
		}
	}
	if len(diff) == 0 {
		return "the job's env"
	}
	return "the job's env, but " + strings.Join(diff, " ")
}

func orDash(s string) string {
	if s == "" {
		return "(no launcher)"
	}
	return s
}
