package script

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// PatchKind names a way a script can modify the inference engine.
type PatchKind string

const (
	// PatchGitApply is git apply / git am.
	PatchGitApply PatchKind = "git-apply"
	// PatchCommand is the patch tool.
	PatchCommand PatchKind = "patch"
	// PatchFile is a .patch or .diff file named anywhere in a command.
	PatchFile PatchKind = "patch-file"
	// PatchSed is sed -i on a file under an engine package or
	// site-packages.
	PatchSed PatchKind = "sed-engine"
	// PatchWrite is a redirect, tee, cp or mv writing into engine sources
	// (cat > $SITE/vllm/x.py <<EOF).
	PatchWrite PatchKind = "write-engine"
	// PatchPython is Python code (python3 - <<EOF, python3 -c) that writes
	// into engine sources.
	PatchPython PatchKind = "python-engine"
	// PatchPip is pip install of an engine: vllm, sglang, tensorrt_llm or
	// atom by name, a wheel of one, or a git URL of one.
	PatchPip PatchKind = "pip-engine"
	// PatchWheel is pip install of some other local .whl file.
	PatchWheel PatchKind = "pip-wheel"
)

// Patch is one engine-patching shape.
type Patch struct {
	Kind    PatchKind
	Line    int
	EndLine int
	Branch  Branch
	// Text is the first line of the command.
	Text string
	// Target is what is patched or installed: the file, the package.
	Target string
}

// OverrideKind names a way a script can override the model architecture.
type OverrideKind string

const (
	// OverrideHFFlag is --hf-overrides (or --hf_overrides) anywhere.
	OverrideHFFlag OverrideKind = "hf-overrides"
	// OverrideMention is hf_overrides written anywhere else (a JSON key, a
	// variable name, Python code).
	OverrideMention OverrideKind = "hf_overrides"
	// OverrideModelArgs is SGLang's --json-model-override-args.
	OverrideModelArgs OverrideKind = "json-model-override-args"
	// OverrideConfigEdit is sed, jq, Python or a redirect editing a model's
	// config.json.
	OverrideConfigEdit OverrideKind = "config-edit"
)

// Override is one architecture-override shape.
type Override struct {
	Kind   OverrideKind
	Line   int
	Branch Branch
	Text   string
	// Keys are the config keys a config edit sets or removes, as its
	// Python, sed or jq code names them; KeysKnown says the edit was read
	// (a redirect or a cp onto config.json says nothing about keys).
	Keys      []string
	KeysKnown bool
}

// ImageKind names how a runner script uses a container image.
type ImageKind string

const (
	// ImageEnrootImport is enroot import ... docker://image.
	ImageEnrootImport ImageKind = "enroot-import"
	// ImageEnrootCreate is enroot create / enroot start.
	ImageEnrootCreate ImageKind = "enroot-create"
	// ImageContainer is srun --container-image.
	ImageContainer ImageKind = "container-image"
	// ImageDocker is docker/podman run or pull.
	ImageDocker ImageKind = "docker"
)

// Image is one use of a container image.
type Image struct {
	Kind ImageKind
	// Ref is the image reference as written ("docker://$IMAGE"), "" when
	// it could not be told apart from the command's other arguments.
	Ref    string
	Line   int
	Branch Branch
	Text   string
}

// engineDirs are the package directories of the engines.
var engineDirs = []string{"vllm", "sglang", "tensorrt_llm", "atom"}

// engineDists are the distribution names pip installs the engines as.
var engineDists = []string{"vllm", "sglang", "tensorrt_llm", "tensorrt-llm", "atom", "amd-atom"}

var sourceExts = []string{".py", ".pyi", ".cu", ".cuh", ".cpp", ".cc", ".h", ".hpp", ".so", ".pyx"}

// isEnginePath reports whether a path points into an installed engine:
// under site-packages/dist-packages, through a variable holding such a
// directory (SITE=$(python3 -c 'import vllm, os; print(os.path.dirname(
// vllm.__file__))')), or a source file under an engine package directory
// (.../vllm/model_executor/x.py).
func (x *extractor) isEnginePath(t *text) bool {
	s := t.String()
	if strings.Contains(s, "site-packages") || strings.Contains(s, "dist-packages") {
		return true
	}
	// The expansions are substrings of s: when s cannot hold what
	// enginePySrc looks for and no variable holds an engine directory,
	// none of them can matter.
	if len(x.enginePathVars) > 0 || mayLocateEngine(s) {
		for _, p := range t.pieces {
			if p.exp && (x.enginePathVars[p.name] || enginePySrc(p.s)) {
				return true
			}
		}
	}
	return engineSourceFile(s)
}

// isEnginePathWord is isEnginePath for a word, building its text only
// when an expansion in it could matter.
func (x *extractor) isEnginePathWord(w *syntax.Word) bool {
	s, static := x.wordString(w)
	if static || (len(x.enginePathVars) == 0 && !mayLocateEngine(s)) {
		return strings.Contains(s, "site-packages") || strings.Contains(s, "dist-packages") || engineSourceFile(s)
	}
	return x.isEnginePath(x.wordText(w))
}

// engineSourceFile reports whether a path names a source file under an
// engine package directory (.../vllm/model_executor/x.py).
func engineSourceFile(s string) bool {
	last := s[strings.LastIndexByte(s, '/')+1:]
	for rest := s; ; {
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			return false
		}
		if slices.Contains(engineDirs, rest[:i]) {
			return slices.ContainsFunc(sourceExts, func(e string) bool { return strings.HasSuffix(last, e) })
		}
		rest = rest[i+1:]
	}
}

// mayLocateEngine is a cheap test that enginePySrc cannot hold for any
// part of s: each of its keywords contains "packages", "lib", "__" or
// "pip", in some case.
func mayLocateEngine(s string) bool {
	return strings.Contains(s, "__") || ContainsFold(s, "lib") || ContainsFold(s, "pip") || ContainsFold(s, "packages")
}

// enginePySrc reports whether code (a command substitution or Python
// snippet) locates an installed engine or the site-packages directory.
func enginePySrc(s string) bool {
	l := strings.ToLower(s)
	for _, k := range []string{"site-packages", "dist-packages", "getsitepackages", "get_python_lib", "purelib", "platlib"} {
		if strings.Contains(l, k) {
			return true
		}
	}
	if !strings.Contains(l, "__file__") && !strings.Contains(l, "__path__") && !strings.Contains(l, "pip show") {
		return false
	}
	for _, e := range engineDirs {
		if strings.Contains(l, "import "+e) || strings.Contains(l, "from "+e) || strings.Contains(l, "pip show "+e) {
			return true
		}
	}
	return false
}

// pyWrites reports whether Python code writes files.
func pyWrites(code string) bool {
	for _, k := range []string{".write(", "write_text(", "write_bytes(", "shutil.copy", "shutil.move", "os.replace(", "os.rename(", "inplace=true", "json.dump("} {
		if strings.Contains(strings.ToLower(code), k) {
			return true
		}
	}
	for _, mode := range []string{`"w"`, `'w'`, `"a"`, `'a'`, `"r+"`, `'r+'`, `"wb"`, `'wb'`, `"w+"`, `'w+'`} {
		if strings.Contains(code, mode) {
			return true
		}
	}
	return false
}

// pyTouchesEngine reports whether Python code points at engine sources.
func pyTouchesEngine(code string) bool {
	if enginePySrc(code) {
		return true
	}
	for _, e := range engineDirs {
		if strings.Contains(code, "/"+e+"/") {
			return true
		}
	}
	return false
}

func (x *extractor) patch(kind PatchKind, rec *callRec, p Branch, target string) {
	x.f.Patches = append(x.f.Patches, Patch{Kind: kind, Line: rec.line, EndLine: rec.endLine, Branch: p, Text: firstLine(x.src(rec.call)), Target: target})
}

func (x *extractor) override(kind OverrideKind, line int, p Branch, txt string) {
	x.overrideKeys(kind, line, p, txt, nil, false)
}

// overrideKeys records an override with the config keys it changes.
func (x *extractor) overrideKeys(kind OverrideKind, line int, p Branch, txt string, keys []string, known bool) {
	key := string(kind) + "\x00" + strconv.Itoa(line)
	if x.overrideSeen[key] {
		return
	}
	x.overrideSeen[key] = true
	x.f.Overrides = append(x.f.Overrides, Override{Kind: kind, Line: line, Branch: p, Text: txt, Keys: keys, KeysKnown: known})
}

// scanText looks at a value (an argument, an assignment, a heredoc body)
// for shapes that matter wherever they are written: .patch files and
// architecture-override options.
func (x *extractor) scanText(s string, line int, p Branch) {
	// Every spelling contains "verride" in one case or the other; most
	// words contain neither, and lowercasing them all would cost more than
	// the rest of the scan.
	if !strings.Contains(s, "verride") && !strings.Contains(s, "VERRIDE") {
		return
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		low := strings.ToLower(l)
		n := line + i
		switch {
		case strings.Contains(low, "--hf-overrides") || strings.Contains(low, "--hf_overrides"):
			x.override(OverrideHFFlag, n, p, strings.TrimSpace(x.f.LineText(n)))
		case strings.Contains(low, "hf_overrides") || strings.Contains(low, "hf-overrides"):
			x.override(OverrideMention, n, p, strings.TrimSpace(x.f.LineText(n)))
		}
		if strings.Contains(low, "json-model-override-args") || strings.Contains(low, "json_model_override_args") {
			x.override(OverrideModelArgs, n, p, strings.TrimSpace(x.f.LineText(n)))
		}
	}
}

// shapes recognizes engine patching and config editing in a command;
// args are its words after wrappers.
func (x *extractor) shapes(s *syntax.Stmt, rec *callRec, args []string, texts argTexts, p Branch) {
	for _, a := range args {
		for len(a) > 0 && (a[len(a)-1] == '"' || a[len(a)-1] == '\'') {
			a = a[:len(a)-1]
		}
		if strings.HasSuffix(a, ".patch") || strings.HasSuffix(a, ".diff") {
			x.patch(PatchFile, rec, p, a)
			break
		}
	}
	cmd := baseName(args[0])
	switch {
	case cmd == "git":
		i := 1
		for i < len(args) && strings.HasPrefix(args[i], "-") {
			if args[i] == "-C" || args[i] == "-c" {
				i++
			}
			i++
		}
		if i < len(args) && (args[i] == "apply" || args[i] == "am") {
			x.patch(PatchGitApply, rec, p, strings.Join(nonOptions(args[i+1:]), " "))
		}
	case cmd == "patch":
		x.patch(PatchCommand, rec, p, strings.Join(nonOptions(args[1:]), " "))
	case cmd == "sed":
		x.sed(rec, args, texts, p)
	case cmd == "cp" || cmd == "mv" || cmd == "install" || cmd == "ln" || cmd == "rsync" || cmd == "tee":
		var targets []int
		for i := 1; i < len(args); i++ {
			if !strings.HasPrefix(args[i], "-") {
				targets = append(targets, i)
			}
		}
		if cmd != "tee" && len(targets) > 0 {
			targets = targets[len(targets)-1:]
		}
		for _, i := range targets {
			if texts.isEnginePath(i) {
				x.patch(PatchWrite, rec, p, args[i])
			}
			if isModelConfig(args[i]) && cmd != "ln" {
				x.override(OverrideConfigEdit, rec.line, p, firstLine(x.src(rec.call)))
			}
		}
	case isPython(cmd):
		x.python(s, rec, args, texts, p)
	case cmd == "pip" || cmd == "pip3":
		x.pip(rec, args[1:], texts.from(1), p)
	case cmd == "uv" && len(args) > 1 && args[1] == "pip":
		x.pip(rec, args[2:], texts.from(2), p)
	case cmd == "jq":
		if slices.ContainsFunc(args[1:], isModelConfig) && writesFile(s) {
			var filter string
			for _, a := range args[1:] {
				if !strings.HasPrefix(a, "-") && !isModelConfig(a) {
					filter = a
					break
				}
			}
			keys, known := jqConfigKeys(filter)
			x.overrideKeys(OverrideConfigEdit, rec.line, p, firstLine(x.src(rec.call)), keys, known)
		}
	}
}

func nonOptions(args []string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			out = append(out, a)
		}
	}
	return out
}

func isModelConfig(s string) bool {
	return strings.HasSuffix(strings.TrimRight(s, `"'`), "config.json")
}

// writesFile reports whether a statement redirects output to a file.
func writesFile(s *syntax.Stmt) bool {
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
			if r.Word != nil && r.Word.Lit() != "/dev/null" {
				return true
			}
		}
	}
	return false
}

func (x *extractor) sed(rec *callRec, args []string, texts argTexts, p Branch) {
	inPlace, script := false, false
	var files []int
	var scripts []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--in-place" || strings.HasPrefix(a, "--in-place="):
			inPlace = true
		case a == "-e" || a == "-f" || a == "--expression" || a == "--file":
			script = true
			i++
			if i < len(args) {
				scripts = append(scripts, args[i])
			}
		case strings.HasPrefix(a, "--"):
		case len(a) > 1 && a[0] == '-':
			opts := a[1:]
			if j := strings.IndexByte(opts, 'i'); j >= 0 {
				inPlace = true
				opts = opts[:j] // -i.bak: the rest is a suffix
			}
			if strings.ContainsAny(opts, "ef") {
				script = true
				i++
				if i < len(args) {
					scripts = append(scripts, args[i])
				}
			}
		case !script:
			script = true
			scripts = append(scripts, a)
		default:
			files = append(files, i)
		}
	}
	if !inPlace {
		return
	}
	for _, i := range files {
		if texts.isEnginePath(i) {
			x.patch(PatchSed, rec, p, args[i])
		}
		if isModelConfig(args[i]) {
			keys, known := sedConfigKeys(strings.Join(scripts, "\n"))
			x.overrideKeys(OverrideConfigEdit, rec.line, p, firstLine(x.src(rec.call)), keys, known)
		}
	}
}

func (x *extractor) python(s *syntax.Stmt, rec *callRec, args []string, texts argTexts, p Branch) {
	mod, script, code, next := pythonTarget(args)
	if mod == "pip" {
		x.pip(rec, args[next:], texts.from(next), p)
		return
	}
	var body string
	switch {
	case code >= 0:
		body = args[code]
	case script == "-" || (script == "" && mod == ""):
		if r := stmtHeredoc(s); r != nil {
			body = x.heredocText(r).String()
		}
	}
	if body == "" {
		return
	}
	if pyWrites(body) && pyTouchesEngine(body) {
		x.patch(PatchPython, rec, p, "python")
		x.f.Patches[len(x.f.Patches)-1].EndLine = x.endLine(s)
	}
	if strings.Contains(body, "config.json") && pyWrites(body) {
		keys, known := pythonConfigKeys(body)
		x.overrideKeys(OverrideConfigEdit, rec.line, p, firstLine(x.src(rec.call)), keys, known)
	}
}

// pip handles the words after `pip`: an install of an engine.
func (x *extractor) pip(rec *callRec, args []string, texts argTexts, p Branch) {
	if len(args) == 0 || args[0] != "install" {
		return
	}
	valued := []string{"-r", "-c", "-i", "-f", "-t", "-C", "--requirement", "--constraint", "--index-url",
		"--extra-index-url", "--find-links", "--target", "--prefix", "--root", "--src", "--platform",
		"--python-version", "--implementation", "--abi", "--no-binary", "--only-binary", "--trusted-host",
		"--cache-dir", "--log", "--proxy", "--timeout", "--retries", "--config-settings", "--upgrade-strategy", "--progress-bar"}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "-e" || a == "--editable" {
			if i+1 < len(args) {
				i++
				if x.isEngineSource(args[i], texts.at(i)) {
					x.patch(PatchPip, rec, p, args[i])
				}
			}
			continue
		}
		if strings.HasPrefix(a, "-") {
			if !strings.Contains(a, "=") && slices.Contains(valued, a) {
				i++
			}
			continue
		}
		switch kind := pipTarget(a); kind {
		case PatchPip, PatchWheel:
			x.patch(kind, rec, p, a)
		}
	}
}

func (x *extractor) isEngineSource(s string, t *text) bool {
	base := path.Base(strings.TrimRight(s, "/"))
	return slices.Contains(engineDirs, strings.ToLower(base)) || x.isEnginePath(t) || strings.Contains(strings.ToLower(s), "tensorrt-llm")
}

// pipTarget classifies one requirement of pip install.
func pipTarget(a string) PatchKind {
	low := strings.ToLower(a)
	if strings.HasPrefix(low, "git+") || strings.Contains(low, "://") {
		for _, e := range []string{"vllm", "sglang", "tensorrt-llm", "tensorrt_llm", "/atom"} {
			if strings.Contains(low, e) {
				return PatchPip
			}
		}
		if strings.HasSuffix(low, ".whl") {
			return PatchWheel
		}
		return ""
	}
	if strings.HasSuffix(low, ".whl") {
		name := path.Base(low)
		if i := strings.IndexByte(name, '-'); i >= 0 {
			name = name[:i]
		}
		if slices.Contains(engineDists, name) {
			return PatchPip
		}
		return PatchWheel
	}
	name := low
	if i := strings.IndexAny(name, "[=<>!~@; "); i >= 0 {
		name = name[:i]
	}
	if slices.Contains(engineDists, name) {
		return PatchPip
	}
	return ""
}

// redirects looks at what a statement reads and writes: a patch fed to
// stdin, output written into engine sources or a model config.
func (x *extractor) redirects(s *syntax.Stmt, p Branch) {
	for _, r := range s.Redirs {
		if r.Word == nil {
			continue
		}
		ts, _ := x.wordString(r.Word)
		line := posLine(r.Pos())
		txt := firstLine(x.src(s))
		switch r.Op {
		case syntax.RdrIn:
			if strings.HasSuffix(ts, ".patch") || strings.HasSuffix(ts, ".diff") {
				x.f.Patches = append(x.f.Patches, Patch{Kind: PatchFile, Line: posLine(s.Pos()), EndLine: x.endLine(s), Branch: p, Text: txt, Target: ts})
			}
			continue
		case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
		default:
			continue
		}
		if x.isEnginePathWord(r.Word) {
			x.f.Patches = append(x.f.Patches, Patch{Kind: PatchWrite, Line: posLine(s.Pos()), EndLine: x.endLine(s), Branch: p, Text: txt, Target: ts})
		}
		if isModelConfig(ts) {
			x.override(OverrideConfigEdit, line, p, txt)
		}
	}
}

// images records container image uses in runner scripts, including those
// of a `bash -c` string the command runs (facts_nested.go).
func (x *extractor) images(argv []string, p Branch, rec *callRec) {
	x.imageFacts(argv, p, rec, true)
}

func (x *extractor) imageFacts(argv []string, p Branch, rec *callRec, outer bool) {
	add := func(kind ImageKind, ref string) {
		x.f.Images = append(x.f.Images, Image{Kind: kind, Ref: ref, Line: rec.line, Branch: p, Text: firstLine(x.src(rec.call))})
	}
	if outer {
		if script, i, ok := nestedScript(argv); ok {
			line := rec.line
			if rec.call != nil && i < len(rec.call.Args) {
				line = posLine(rec.call.Args[i].Pos())
			}
			x.nestedImages(script, line, p, rec)
		}
	}
	for i, a := range argv {
		switch baseName(a) {
		case "enroot":
			if i+1 >= len(argv) {
				continue
			}
			switch argv[i+1] {
			case "import":
				ref := ""
				for _, b := range argv[i+2:] {
					if strings.Contains(b, "://") {
						ref = b
					}
				}
				add(ImageEnrootImport, ref)
			case "create", "start":
				add(ImageEnrootCreate, lastNonOption(argv[i+2:]))
			}
			return
		case "docker", "podman":
			if i+1 < len(argv) && (argv[i+1] == "run" || argv[i+1] == "pull") {
				ref := ""
				if argv[i+1] == "pull" {
					ref = lastNonOption(argv[i+2:])
				}
				add(ImageDocker, ref)
			}
			return
		}
		if v, ok := strings.CutPrefix(a, "--container-image="); ok {
			add(ImageContainer, v)
		} else if a == "--container-image" && i+1 < len(argv) {
			add(ImageContainer, argv[i+1])
		}
	}
}

func lastNonOption(args []string) string {
	for i := len(args) - 1; i >= 0; i-- {
		if !strings.HasPrefix(args[i], "-") {
			return args[i]
		}
	}
	return ""
}
