"""Reports filed through an issue template: what a fix's message looks like when a reporter fills
a repository's bug template with it (issue 46).

Real bug reports are filed through templates: HTML comments of instructions, section headings,
checklists, an environment to fill in (`- OS: …`, an `npx envinfo` dump). Mined fix messages
have none of it (the miner strips pull-request templates), so the mined test split alone cannot
show what the boilerplate does to `locate`. `python -m lab.loc_fixes --template NAME` files each
pair's message through one of these three templates, written for this benchmark in the three
shapes GitHub repositories use (an instructions-in-comments template, GitHub's default
`bug_report.md`, an issue form), and `--keep-template` measures `locate` reading the boilerplate
as prose (without `retrieval.issue_text.without_template`).
"""

from __future__ import annotations

# instructions in HTML comments, headings, a filled-in environment list and a checklist
COMMENTS = """<!-- Before you open an issue, please search the existing issues and discussions.
Fill in every section below: reports without a minimal reproduction may be closed. -->

### Describe the bug

{body}

### Steps to reproduce

<!-- A minimal reproduction: a repository, a code snippet or a link to a sandbox. -->

### Expected behavior

<!-- A clear and concise description of what you expected to happen. -->

### Environment

- OS: macOS 14.2 (arm64)
- Runtime: 20.10.0
- Browser: Chrome 120.0.6099
- Package version: 3.2.1

### Validations

- [x] I have searched the existing issues and discussions
- [x] I have read the documentation and the contributing guide
- [x] This is a bug, not a question or a feature request
"""

# GitHub's default bug report template, its sentences left in as reporters often leave them
GITHUB_DEFAULT = """**Describe the bug**
A clear and concise description of what the bug is.

{body}

**To Reproduce**
Steps to reproduce the behavior:
1. Go to '...'
2. Click on '....'
3. Scroll down to '....'
4. See error

**Expected behavior**
A clear and concise description of what you expected to happen.

**Screenshots**
If applicable, add screenshots to help explain your problem.

**Desktop (please complete the following information):**
 - OS: Windows 11
 - Browser: Firefox
 - Version: 2.4.0

**Additional context**
Add any other context about the problem here.
"""

# an issue form: headings, a checked box, empty fields and an environment dump in a fence
ISSUE_FORM = """### Is there an existing issue for this?

- [X] I have searched the existing issues

### Current Behavior

{body}

### Expected Behavior

_No response_

### Steps To Reproduce

_No response_

### Environment

<details>

```
System:
    OS: Linux 6.5 Ubuntu 22.04.3 LTS (Jammy Jellyfish)
    CPU: (16) x64 AMD Ryzen 7 5800X 8-Core Processor
    Memory: 21.33 GB / 31.26 GB
    Container: Yes
    Shell: 5.1.16 - /bin/bash
Binaries:
    Node: 20.9.0 - ~/.nvm/versions/node/v20.9.0/bin/node
    Yarn: 1.22.19 - /usr/local/bin/yarn
    npm: 10.1.0 - ~/.nvm/versions/node/v20.9.0/bin/npm
```

</details>

### Anything else?

_No response_
"""

# no template: the session a reporter pasted, opening with the interpreter's banners (Python's
# and IPython's), as Python reports often do
INTERPRETER = """{body}

```
Python 3.11.4 (main, Jun  7 2023, 10:13:09) [GCC 12.2.0] on linux
Type "help", "copyright", "credits" or "license" for more information.
IPython 8.14.0 -- An enhanced Interactive Python. Type '?' for help.
?         -> Introduction and overview of IPython's features.
%quickref -> Quick reference.
help      -> Python's own help system.
object?   -> Details about 'object', use 'object??' for extra details.
```
"""

# the shape of the Go project's own bug template, which many Go repositories copy: questions as
# headings that quote commands, and `go env`'s dump in a folded <pre> block
GO_QUESTIONS = """### What version of Go are you using (`go version`)?

<pre>
$ go version
go version go1.21.5 linux/amd64
</pre>

### Does this issue reproduce with the latest release?

Yes.

### What operating system and processor architecture are you using (`go env`)?

<details><summary><code>go env</code> Output</summary><br><pre>
$ go env
GO111MODULE=""
GOARCH="amd64"
GOBIN=""
GOCACHE="/home/user/.cache/go-build"
GOENV="/home/user/.config/go/env"
GOEXE=""
GOEXPERIMENT=""
GOFLAGS=""
GOHOSTARCH="amd64"
GOHOSTOS="linux"
GOINSECURE=""
GOMODCACHE="/home/user/go/pkg/mod"
GONOPROXY=""
GONOSUMDB=""
GOOS="linux"
GOPATH="/home/user/go"
GOPRIVATE=""
GOPROXY="https://proxy.golang.org,direct"
GOROOT="/usr/local/go"
GOSUMDB="sum.golang.org"
GOTMPDIR=""
GOTOOLCHAIN="auto"
GOTOOLDIR="/usr/local/go/pkg/tool/linux_amd64"
GOVCS=""
GOVERSION="go1.21.5"
GCCGO="gccgo"
GOAMD64="v1"
AR="ar"
CC="gcc"
CXX="g++"
CGO_ENABLED="1"
CGO_CFLAGS="-O2 -g"
CGO_CPPFLAGS=""
CGO_CXXFLAGS="-O2 -g"
CGO_FFLAGS="-O2 -g"
CGO_LDFLAGS="-O2 -g"
PKG_CONFIG="pkg-config"
GOGCCFLAGS="-fPIC -m64 -pthread -Wl,--no-gc-sections -fmessage-length=0"
</pre></details>

### What did you do?

{body}
"""

TEMPLATES = {
    "comments": COMMENTS,
    "github-default": GITHUB_DEFAULT,
    "issue-form": ISSUE_FORM,
    "interpreter": INTERPRETER,
    "go-questions": GO_QUESTIONS,
}


def filed(message: str, template: str) -> str:
    """`message` as a report filed through `template` (a `TEMPLATES` name): its first line as
    the issue's title, the rest (or the title again) as what the reporter wrote."""
    title, _, body = message.partition("\n")
    return title + "\n\n" + TEMPLATES[template].format(body=body.strip() or title)
