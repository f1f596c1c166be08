package reviewer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/internal/markdown"
)

// WelcomeMarker identifies the contributor reminder. The
// repository's own workflow used the same marker, so either one's comment
// counts as the reminder having been posted.
const WelcomeMarker = "<!-- recipe-reminder -->"

// SignoffPhrase is the sentence a CODEOWNER's sign-off must contain for
// the verification to run.
const SignoffPhrase = "As a PR reviewer and CODEOWNER, I have reviewed this and have"

// WelcomeComment is the reminder posted once on a PR that touches master
// configs, benchmarks or the perf changelog: how to get a sign-off, which
// sweep label to add, and that the author owns the post-merge jobs. English
// first, then Chinese.
func WelcomeComment() string {
	en := []string{
		"Thanks for the contribution! Before you ask a core maintainer for review (on Slack), ask the " +
			"CODEOWNER of your company for the latest `PR_REVIEW_CHECKLIST.md` and have them fill it in on this PR. " +
			"The sign-off check only starts when the sign-off follows that template exactly, including the sentence " +
			"`" + SignoffPhrase + "`.",
		"To verify the PR, add the `full-sweep-fail-fast` label (recommended): the benchmark sweep runs only on " +
			"labeled PRs. Use `full-sweep-enabled` instead only when matrix jobs must keep running after a failure.",
		"After the merge, the PR author is responsible for every GitHub Actions job passing. Most failures are " +
			"flakes that re-running the failed jobs fixes.",
	}
	zh := []string{
		"感谢你的贡献！在 Slack 上请核心维护者审阅之前，请先联系你所在公司的 CODEOWNER，获取最新的 " +
			"`PR_REVIEW_CHECKLIST.md` 并请其在此 PR 上填写。只有签核内容严格遵循该模板（包括英文语句 " +
			"`" + SignoffPhrase + "`）时，签核检查才会启动。",
		"如需验证此 PR，请添加 `full-sweep-fail-fast` 标签（推荐）：基准测试 sweep 只在带标签的 PR 上运行。" +
			"仅当矩阵任务需要在失败后继续运行时，才改用 `full-sweep-enabled`。",
		"合并之后，PR 作者负责确保所有 GitHub Actions 任务通过。大多数失败只是偶发抖动，重新运行失败的任务即可。",
	}
	return fmt.Sprintf("%s\n\n---\n\n%s\n\n%s", strings.Join(en, "\n\n"), strings.Join(zh, "\n\n"), WelcomeMarker)
}

// HasWelcomeMarker reports whether a comment is the contributor reminder.
func HasWelcomeMarker(body string) bool { return strings.Contains(body, WelcomeMarker) }

const reviewMarkerPrefix = "<!-- reviewbot:review "

// ReviewBody is the body of the pull-request review that carries a plan's
// inline comments. Its marker names the reviewed head, so the app can tell
// whether a review it failed to get an answer for was created after all.
func (p *Plan) ReviewBody(headSHA string) string {
	short := headSHA
	if len(short) > 12 {
		short = short[:12]
	}
	return "**reviewbot** reviewed " + short + ": " + prose.Count(len(p.Inline), "inline comment", "inline comments") +
		" below; the summary comment lists every finding.\n\n" +
		reviewMarkerPrefix + "sha=" + escapeMarkerValue(headSHA) + " " + markerSuffix
}

// ParseReviewMarker returns the head SHA a review body names.
func ParseReviewMarker(body string) (sha string, ok bool) {
	for _, m := range slices.Backward(markdown.EndMarkers(body)) {
		if !strings.HasPrefix(m, reviewMarkerPrefix) {
			continue
		}
		fields, ok := markerFields(m[len(reviewMarkerPrefix):])
		if !ok || fields["sha"] == "" {
			return "", false
		}
		return fields["sha"], true
	}
	return "", false
}
