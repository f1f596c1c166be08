//go:build !noserve

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const deployDir = "../../deploy"

// TestAppManifest checks the GitHub App manifest asks for exactly the
// permissions and events the App uses (SPEC §8).
func TestAppManifest(t *testing.T) {
	// Every field GitHub's manifest flow knows; an unknown one is a typo.
	var m struct {
		Name        string            `json:"name"`
		URL         string            `json:"url"`
		Description string            `json:"description"`
		Public      bool              `json:"public"`
		Hook        map[string]any    `json:"hook_attributes"`
		Redirect    string            `json:"redirect_url"`
		Permissions map[string]string `json:"default_permissions"`
		Events      []string          `json:"default_events"`
	}
	dec := json.NewDecoder(bytes.NewReader(readDeploy(t, "app-manifest.json")))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("app-manifest.json: %v", err)
	}
	// No more than the App uses: check runs are not read (a check run's
	// name proves nothing; the sweep evidence comes from the Actions API),
	// and the organization's members are read for CODEOWNERS teams.
	want := map[string]string{"contents": "read", "pull_requests": "write", "issues": "write", "statuses": "write",
		"actions": "read", "metadata": "read", "members": "read"}
	if len(m.Permissions) != len(want) {
		t.Errorf("permissions %v, want %v", m.Permissions, want)
	}
	for k, v := range want {
		if m.Permissions[k] != v {
			t.Errorf("permission %s = %q, want %q", k, m.Permissions[k], v)
		}
	}
	events := append([]string(nil), m.Events...)
	sort.Strings(events)
	if strings.Join(events, ",") != "issue_comment,pull_request,pull_request_review,pull_request_review_comment" {
		t.Errorf("events %v", m.Events)
	}
	if u, _ := m.Hook["url"].(string); !strings.HasSuffix(u, "/webhook") {
		t.Errorf("hook url %q does not point at /webhook", u)
	}
}

// TestKubernetesDeployment checks the Deployment against the server: its
// environment is a valid `reviewbot serve` configuration, its probes hit
// the health endpoints, and it has resource limits.
func TestKubernetesDeployment(t *testing.T) {
	var dep struct {
		Kind string
		Spec struct {
			Replicas int
			Template struct {
				Spec struct {
					TerminationGracePeriodSeconds int `yaml:"terminationGracePeriodSeconds"`
					Containers                    []struct {
						Args []string
						Env  []struct {
							Name      string
							Value     string
							ValueFrom map[string]map[string]string `yaml:"valueFrom"`
						}
						LivenessProbe struct {
							HTTPGet struct{ Path string } `yaml:"httpGet"`
						} `yaml:"livenessProbe"`
						ReadinessProbe struct {
							HTTPGet struct{ Path string } `yaml:"httpGet"`
						} `yaml:"readinessProbe"`
						Resources struct{ Limits, Requests map[string]string }
					}
				}
			}
		}
	}
	if err := yaml.Unmarshal(readDeploy(t, "kubernetes/deployment.yaml"), &dep); err != nil {
		t.Fatal(err)
	}
	if dep.Kind != "Deployment" || len(dep.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("deployment.yaml: kind %q, %d containers", dep.Kind, len(dep.Spec.Template.Spec.Containers))
	}
	c := dep.Spec.Template.Spec.Containers[0]
	if c.LivenessProbe.HTTPGet.Path != "/healthz" || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Errorf("probes %q, %q", c.LivenessProbe.HTTPGet.Path, c.ReadinessProbe.HTTPGet.Path)
	}
	if c.Resources.Limits["memory"] == "" || c.Resources.Limits["cpu"] == "" || c.Resources.Requests["memory"] == "" {
		t.Errorf("resources %+v", c.Resources)
	}
	keyFile := filepath.Join(t.TempDir(), "private-key.pem")
	if err := os.WriteFile(keyFile, []byte(testKeyPEM(t)), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom["secretKeyRef"]["key"] == "app-id":
			env[e.Name] = "123456"
		case e.ValueFrom["secretKeyRef"] != nil:
			env[e.Name] = "secret-from-the-secret"
		case e.Name == "GITHUB_APP_PRIVATE_KEY_FILE":
			env[e.Name] = keyFile
		default:
			// Kubernetes expands $(NAME) of the variables defined above.
			env[e.Name] = envRef.ReplaceAllStringFunc(e.Value, func(m string) string {
				if v, ok := env[m[2:len(m)-1]]; ok {
					return v
				}
				return m
			})
		}
	}
	cfg, err := loadServeConfig(c.Args[1:], envOf(env), &bytes.Buffer{}, &bytes.Buffer{})
	if err != nil {
		t.Fatalf("the Deployment's environment is not a valid configuration: %v", err)
	}
	if grace := dep.Spec.Template.Spec.TerminationGracePeriodSeconds; float64(grace) <= cfg.shutdownTimeout.Seconds() {
		t.Errorf("terminationGracePeriodSeconds %d does not leave room for the %v drain", grace, cfg.shutdownTimeout)
	}
	// Several replicas need the shared Redis, and it must be the one the
	// manifests deploy.
	if dep.Spec.Replicas != 3 {
		t.Errorf("replicas: %d, want 3", dep.Spec.Replicas)
	}
	if cfg.redisURL == "" {
		t.Fatal("several replicas without REVIEWBOT_REDIS_URL would each review every PR")
	}
	if strings.Contains(cfg.redisURL, "$(") {
		t.Errorf("REVIEWBOT_REDIS_URL %q refers to a variable defined after it (or not at all)", cfg.redisURL)
	}
	u, err := url.Parse(cfg.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	if pw, _ := u.User.Password(); pw != "secret-from-the-secret" {
		t.Errorf("the Redis password does not come from the Secret")
	}
	checkRedisManifest(t, u.Hostname(), u.Port())
	checkPDB(t, dep.Spec.Replicas)
	checkMemoryLimit(t, env["GOMEMLIMIT"], c.Resources.Limits["memory"])

	var kust struct{ Resources []string }
	if err := yaml.Unmarshal(readDeploy(t, "kubernetes/kustomization.yaml"), &kust); err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, r := range kust.Resources {
		listed[r] = true
	}
	files, _ := filepath.Glob(filepath.Join(deployDir, "kubernetes", "*.yaml"))
	for _, f := range files {
		name := filepath.Base(f)
		if name != "kustomization.yaml" && name != "secret.example.yaml" && !listed[name] {
			t.Errorf("kustomization.yaml does not list %s", name)
		}
		dec := yaml.NewDecoder(bytes.NewReader(readDeploy(t, "kubernetes/"+name)))
		for {
			var doc map[string]any
			if err := dec.Decode(&doc); err != nil {
				if err != io.EOF {
					t.Errorf("%s: %v", name, err)
				}
				break
			}
			if doc["kind"] == nil && doc["resources"] == nil {
				t.Errorf("%s: a document without kind", name)
			}
		}
	}
}

var envRef = regexp.MustCompile(`\$\([A-Za-z_][A-Za-z0-9_]*\)`)

// checkRedisManifest checks redis.yaml serves Redis at host:port with the
// settings the README asks for.
func checkRedisManifest(t *testing.T, host, port string) {
	t.Helper()
	type container struct {
		Args  []string
		Ports []struct {
			Name          string
			ContainerPort int `yaml:"containerPort"`
		}
	}
	var dep struct {
		Kind     string
		Metadata struct{ Name string }
		Spec     struct {
			Replicas int
			Template struct {
				Spec struct{ Containers []container }
			}
		}
	}
	var svc struct {
		Kind     string
		Metadata struct{ Name string }
		Spec     struct {
			Ports []struct {
				Port       int
				TargetPort string `yaml:"targetPort"`
			}
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(readDeploy(t, "kubernetes/redis.yaml")))
	var found []string
	for {
		var node yaml.Node
		if err := dec.Decode(&node); err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
		var head struct{ Kind string }
		_ = node.Decode(&head)
		switch head.Kind {
		case "Deployment":
			_ = node.Decode(&dep)
		case "Service":
			_ = node.Decode(&svc)
		}
		found = append(found, head.Kind)
	}
	if dep.Kind != "Deployment" || svc.Kind != "Service" || len(dep.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("redis.yaml holds %v, want a Deployment and a Service", found)
	}
	if dep.Spec.Replicas != 1 {
		t.Errorf("Redis replicas %d: a Deployment of several would be several unrelated Redis servers", dep.Spec.Replicas)
	}
	if svc.Metadata.Name != host {
		t.Errorf("REVIEWBOT_REDIS_URL points at %q, the Service is %q", host, svc.Metadata.Name)
	}
	if len(svc.Spec.Ports) != 1 || fmt.Sprint(svc.Spec.Ports[0].Port) != port {
		t.Errorf("the Redis Service's ports %+v do not serve port %s", svc.Spec.Ports, port)
	}
	args := strings.Join(dep.Spec.Template.Spec.Containers[0].Args, " ")
	for _, want := range []string{"--maxmemory-policy noeviction", "--maxmemory ", "--requirepass $(REDIS_PASSWORD)"} {
		if !strings.Contains(args, want) {
			t.Errorf("the Redis arguments %q lack %q", args, want)
		}
	}
}

// checkPDB: the budget follows the replica count. maxUnavailable: 1 keeps
// all but one of any number of replicas through a drain, and never blocks
// it: a minAvailable that equals the replicas (as 2 would for the README's
// single-replica setup) lets no node drain at all.
func checkPDB(t *testing.T, replicas int) {
	t.Helper()
	var pdb struct {
		Kind string
		Spec struct {
			MinAvailable   *int `yaml:"minAvailable"`
			MaxUnavailable int  `yaml:"maxUnavailable"`
			Selector       struct {
				MatchLabels map[string]string `yaml:"matchLabels"`
			}
		}
	}
	if err := yaml.Unmarshal(readDeploy(t, "kubernetes/pdb.yaml"), &pdb); err != nil {
		t.Fatal(err)
	}
	if pdb.Kind != "PodDisruptionBudget" || pdb.Spec.MinAvailable != nil || pdb.Spec.MaxUnavailable != 1 ||
		pdb.Spec.Selector.MatchLabels["app.kubernetes.io/name"] != "reviewbot" {
		t.Errorf("pdb.yaml: %+v (want maxUnavailable: 1 and no minAvailable, selecting the App)", pdb)
	}
	for _, n := range []int{1, replicas} {
		if n-pdb.Spec.MaxUnavailable >= n {
			t.Errorf("with %d replicas the budget blocks every eviction", n)
		}
	}
}

// checkMemoryLimit: GOMEMLIMIT leaves headroom below the container's
// memory limit (70-85% of it), where a limit equal to it would let the
// heap grow to the OOM kill.
func checkMemoryLimit(t *testing.T, gomemlimit, limit string) {
	t.Helper()
	units := map[string]float64{"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}
	parse := func(s string) float64 {
		m := regexp.MustCompile(`^(\d+)([A-Za-z]*)$`).FindStringSubmatch(s)
		if m == nil || units[m[2]] == 0 {
			t.Fatalf("cannot read the quantity %q", s)
		}
		n, _ := strconv.ParseFloat(m[1], 64)
		return n * units[m[2]]
	}
	if r := parse(gomemlimit) / parse(limit); r < 0.70 || r > 0.85 {
		t.Errorf("GOMEMLIMIT %s is %.0f%% of the %s limit; want about 80%%", gomemlimit, 100*r, limit)
	}
}

func readDeploy(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(deployDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReleaseWorkflow checks the release pipeline against what it feeds:
// every platform's archive from deploy/release/build.sh with the tag
// stamped in, attached to the release with checksums.txt (what action.yml
// downloads), and the image built from the Dockerfile's base images pinned
// by digest, with the tag stamped in.
func TestReleaseWorkflow(t *testing.T) {
	type step struct {
		Name string
		ID   string
		Uses string
		Run  string
		Env  map[string]string
		With map[string]string
	}
	var wf struct {
		On struct {
			Push struct{ Tags []string }
		}
		Jobs map[string]struct {
			Permissions map[string]string
			Steps       []step
		}
	}
	b, err := os.ReadFile("../../.github/workflows/release.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	if len(wf.On.Push.Tags) != 1 || !strings.HasPrefix(wf.On.Push.Tags[0], "v") {
		t.Errorf("the release runs on a version tag: %v", wf.On.Push.Tags)
	}
	all := map[string]step{}
	for job, j := range wf.Jobs {
		for _, s := range j.Steps {
			if strings.Contains(s.Run, "${{") {
				t.Errorf("%s: step %q expands an expression inside its script", job, s.Name)
			}
			all[job+"/"+s.Name] = s
		}
	}
	bins := wf.Jobs["binaries"]
	if bins.Permissions["contents"] != "write" {
		t.Errorf("binaries: creating the release needs contents: write")
	}
	build, publish := all["binaries/Build the archives and checksums"], all["binaries/Publish the release"]
	if build.Run != `deploy/release/build.sh "$VERSION" dist` || build.Env["VERSION"] != "${{ github.ref_name }}" {
		t.Errorf("build step %+v", build)
	}
	if !strings.Contains(publish.Run, "dist/*.tar.gz dist/checksums.txt") || publish.Env["VERSION"] != "${{ github.ref_name }}" {
		t.Errorf("publish step %+v", publish)
	}
	script, err := os.ReadFile("../../deploy/release/build.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"platforms=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64)", `-X main.buildVersion=$version`,
		`name="reviewbot_${version#v}_${goos}_${goarch}"`, "sha256sum reviewbot_*.tar.gz > checksums.txt"} {
		if !strings.Contains(string(script), want) {
			t.Errorf("build.sh lacks %q", want)
		}
	}
	_ = buildVersion // the variable -X sets

	image := wf.Jobs["image"]
	if image.Permissions["packages"] != "write" {
		t.Errorf("image: pushing to ghcr.io needs packages: write")
	}
	var push step
	for _, s := range image.Steps {
		if strings.HasPrefix(s.Uses, "docker/build-push-action@") {
			push = s
		}
	}
	for _, want := range []string{"VERSION=${{ github.ref_name }}", "GO_IMAGE=${{ steps.base.outputs.go }}", "RUNTIME_IMAGE=${{ steps.base.outputs.runtime }}"} {
		if !strings.Contains(push.With["build-args"], want) {
			t.Errorf("build-push-action build-args lack %q: %q", want, push.With["build-args"])
		}
	}
	if push.With["platforms"] != "linux/amd64,linux/arm64" || push.With["push"] != "true" {
		t.Errorf("build-push-action %+v", push.With)
	}
	pin := all["image/Pin the base images by digest"]
	dockerfile := string(readDeploy(t, "../Dockerfile"))
	for _, arg := range []string{"GO_IMAGE", "RUNTIME_IMAGE"} {
		if !strings.Contains(pin.Run, "pin "+arg) || !regexp.MustCompile(`(?m)^ARG `+arg+`=\S+:\S+$`).MatchString(dockerfile) {
			t.Errorf("the pin step resolves %s, which the Dockerfile must declare with its tag", arg)
		}
	}
}

// TestDockerfile checks the image is built from the base images the
// release pins, stamps the version, and runs as non-root.
func TestDockerfile(t *testing.T) {
	d := string(readDeploy(t, "../Dockerfile"))
	firstFrom := strings.Index(d, "\nFROM ")
	for _, want := range []string{"\nARG GO_IMAGE=", "\nARG RUNTIME_IMAGE="} {
		if i := strings.Index(d, want); i < 0 || i > firstFrom {
			t.Errorf("%s must be declared before the first FROM", strings.TrimSpace(want))
		}
	}
	for _, want := range []string{"FROM --platform=$BUILDPLATFORM ${GO_IMAGE} AS build", "FROM ${RUNTIME_IMAGE}\n",
		"ARG VERSION=devel", `-X main.buildVersion=${VERSION}`, "USER 65532:65532", `CMD ["serve"]`} {
		if !strings.Contains(d, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	if strings.Count(d, "\nFROM ") != 2 {
		t.Errorf("want a build stage and a runtime stage")
	}
}
