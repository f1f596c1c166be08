package checks

import (
	"github.com/reviewbot-dev/reviewbot/checks/prose"

	"errors"
	"fmt"
)

// configRule validates a .github/reviewbot.yml the PR changes. The review
// itself runs under the base's configuration (a PR cannot loosen the rules
// it is reviewed under), so a broken file would only show once merged:
// as every later review failing to start.
func configRule() *Rule {
	return &Rule{
		ID:       "RB001",
		Severity: Blocking,
		Title:    "The PR leaves .github/reviewbot.yml invalid",
		Doc: "When a PR changes `.github/reviewbot.yml`, reviewbot loads the new version the way it will be " +
			"loaded after the merge: unknown keys, unknown rule IDs, bad settings and YAML errors are reported " +
			"at their line. The PR itself is reviewed under the base branch's configuration; once it merges, " +
			"every review would stop with the error instead. Fix the file as the message says.",
		Run: func(p *Pass) error {
			fc := p.Change.File(ConfigPath)
			if fc == nil || fc.Path != ConfigPath || fc.Status == Deleted || !fc.Changed() {
				return nil
			}
			b, err := p.Change.Head.ReadFile(p.Ctx, ConfigPath)
			if err != nil {
				if IsNotExist(err) {
					return nil
				}
				return fmt.Errorf("read %s: %w", ConfigPath, err)
			}
			cfg, err := ParseConfig(b)
			if err == nil && p.reg != nil {
				err = cfg.Validate(p.reg)
			}
			if err == nil {
				return nil
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				return err
			}
			// The key and the loader's message quote the PR's file.
			what := prose.CodeLine(ce.Msg)
			if ce.Key != "" {
				what = prose.Code(ce.Key) + ": " + prose.CodeLine(ce.Msg)
			}
			where := ""
			if ce.Line > 0 {
				where = fmt.Sprintf("line %d: ", ce.Line)
			}
			p.Report(Finding{
				Path: ConfigPath, Line: ce.Line,
				Title: "The PR leaves .github/reviewbot.yml invalid",
				Body: fmt.Sprintf("The new `%s` does not load: %s%s. This PR is still reviewed under the base "+
					"branch's configuration, but after it merges every review stops with this error. Fix the file.",
					ConfigPath, where, what),
				Key: ce.Key + " " + ce.Msg,
			})
			return nil
		},
	}
}
