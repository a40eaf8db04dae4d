"""Which pinned registry packages each mined set is built from.

Every language has two splits by package, `train` (for learning a ranker) and `test` (for
measuring it): no package, and no project, is in both, and none is a project of the eight
hand-written sets (Flask & co., Symfony, tRPC/TanStack Query, cobra/chi/gin/Prometheus/goldmark,
clap/serde_json/http/url/semver, Rack/Sinatra/Mustermann/Thor, BeanShell/OpenJFX,
Newtonsoft.Json/NUnit), nor of the bug-report set's PyPI projects or Laravel, nor any
repository never to train or tune on (`refused`: each package names its upstream repository).
"""

from __future__ import annotations

from dataclasses import dataclass

from lab.excluded import is_excluded

SPLITS = ("train", "test")
_MONO = "6.8.0.105+dfsg-3.3"  # Mono's source: a 117 MB download, unpacked once


@dataclass(frozen=True)
class Package:
    """One pinned package and the folder of its sources that goes into the corpus."""

    folder: str  # the package's folder in the corpus
    registry: str  # pypi | pypi-sdist | npm | debian | debian-source
    spec: str  # what the registry's client is asked for, with its version
    # globs (in the unpacked archive) of the source folders kept: the first that matches, where
    # "a,b" is both a and b
    roots: tuple[str, ...]
    exclude: tuple[str, ...] = ()  # globs (relative to a root) of files left out
    # the project's repository (owner/name on GitHub): checked against the repositories never
    # to train or tune on (`excluded`)
    upstream: str = ""


@dataclass(frozen=True)
class MinedLanguage:
    """A language of the mined sets: its files and its packages per split."""

    key: str  # short name in set names: mined-<key>-<split>
    label: str
    suffixes: tuple[str, ...]
    cast_language: str | None  # astchunk's name for the language (the cAST baselines)
    train: tuple[Package, ...]
    test: tuple[Package, ...]

    def packages(self, split: str) -> tuple[Package, ...]:
        """The packages of one split."""
        return self.train if split == "train" else self.test


def refused(packages: tuple[Package, ...], excluded: set[str]) -> list[str]:
    """Why each package that may not be mined is refused: its upstream is unrecorded, or is a
    repository never to train or tune on (`lab.excluded`)."""
    reasons: list[str] = []
    for package in packages:
        if not package.upstream:
            reasons.append(f"{package.spec}: no upstream repository recorded in {__name__}")
        elif is_excluded(package.upstream, excluded):
            reasons.append(
                f"{package.spec}: its upstream {package.upstream} is listed in exclude_repos.txt"
            )
    return reasons


def _wheel(folder: str, spec: str, *roots: str, upstream: str) -> Package:
    return Package(folder, "pypi", spec, roots or (folder,), upstream=upstream)


def _npm(
    folder: str,
    spec: str,
    root: str = "package/src",
    exclude: tuple[str, ...] = (),
    *,
    upstream: str,
) -> Package:
    # declaration files hold no function bodies
    return Package(folder, "npm", spec, (root,), ("*.d.ts", *exclude), upstream)


def _go(folder: str, package: str, version: str, import_path: str, *, upstream: str) -> Package:
    root = f"usr/share/gocode/src/{import_path}"
    return Package(folder, "debian", f"{package}={version}", (root,), upstream=upstream)


def _crate(folder: str, package: str, version: str, *, upstream: str) -> Package:
    root = "usr/share/cargo/registry/*/src"
    return Package(folder, "debian", f"{package}={version}", (root,), upstream=upstream)


def _php(folder: str, package: str, version: str, *, upstream: str) -> Package:
    # Debian generates autoload.php for each package: it is not the project's code
    return Package(
        folder,
        "debian",
        f"{package}={version}",
        ("usr/share/php",),
        ("**/autoload.php",),
        upstream,
    )


def _gem(folder: str, package: str, version: str, *, upstream: str) -> Package:
    return Package(
        folder,
        "debian",
        f"{package}={version}",
        ("usr/share/rubygems-integration/all/gems/*/lib", "usr/lib/ruby/vendor_ruby"),
        upstream=upstream,
    )


def _source(folder: str, package: str, version: str, *roots: str, upstream: str) -> Package:
    return Package(folder, "debian-source", f"{package}={version}", roots, upstream=upstream)


LANGUAGES: dict[str, MinedLanguage] = {
    "python": MinedLanguage(
        key="python",
        label="Python",
        suffixes=(".py",),
        cast_language="python",
        train=(
            _wheel("boltons", "boltons==25.0.0", upstream="mahmoud/boltons"),
            _wheel("toolz", "toolz==1.0.0", "toolz", "tlz", upstream="pytoolz/toolz"),
            _wheel("marshmallow", "marshmallow==3.26.1", upstream="marshmallow-code/marshmallow"),
            _wheel("cachetools", "cachetools==5.5.2", upstream="tkem/cachetools"),
            _wheel("humanize", "humanize==4.12.1", upstream="python-humanize/humanize"),
        ),
        test=(
            _wheel(
                "more_itertools", "more-itertools==10.6.0", upstream="more-itertools/more-itertools"
            ),
            _wheel("arrow", "arrow==1.3.0", upstream="arrow-py/arrow"),
            _wheel("tomlkit", "tomlkit==0.13.2", upstream="python-poetry/tomlkit"),
            _wheel("packaging", "packaging==24.2", upstream="pypa/packaging"),
            _wheel("attrs", "attrs==25.1.0", "attr", "attrs", upstream="python-attrs/attrs"),
        ),
    ),
    "javascript": MinedLanguage(
        key="javascript",
        label="JavaScript",
        suffixes=(".js",),
        cast_language=None,
        train=(
            # the per-function modules: lodash.js and core.js repeat them, fp/ wraps them
            _npm(
                "lodash",
                "lodash@4.17.21",
                "package",
                ("lodash.js", "core.js", "fp/**", "*.min.js", "fp.js"),
                upstream="lodash/lodash",
            ),
            _npm("async", "async@3.2.6", "package/internal", upstream="caolan/async"),
            _npm("crypto-js", "crypto-js@4.2.0", "package", upstream="brix/crypto-js"),
        ),
        test=(
            _npm("moment", "moment@2.30.1", "package/src", upstream="moment/moment"),
            _npm("node-forge", "node-forge@1.3.1", "package/lib", upstream="digitalbazaar/forge"),
            _npm("commander", "commander@12.1.0", "package/lib", upstream="tj/commander.js"),
            _npm("ws", "ws@8.18.0", "package/lib", upstream="websockets/ws"),
        ),
    ),
    "typescript": MinedLanguage(
        key="typescript",
        label="TypeScript",
        suffixes=(".ts",),
        cast_language="typescript",
        train=(
            _npm("fabric", "fabric@6.4.3", upstream="fabricjs/fabric.js"),
            _npm("mobx", "mobx@6.13.5", upstream="mobxjs/mobx"),
            _npm("immer", "immer@10.1.1", upstream="immerjs/immer"),
            _npm("signalr", "@microsoft/signalr@8.0.7", upstream="dotnet/aspnetcore"),
        ),
        test=(
            _npm("tiptap-core", "@tiptap/core@2.10.3", upstream="ueberdosis/tiptap"),
            _npm(
                "prosemirror-model",
                "prosemirror-model@1.23.0",
                upstream="ProseMirror/prosemirror-model",
            ),
            _npm(
                "prosemirror-transform",
                "prosemirror-transform@1.10.2",
                upstream="ProseMirror/prosemirror-transform",
            ),
            _npm(
                "prosemirror-state",
                "prosemirror-state@1.4.3",
                upstream="ProseMirror/prosemirror-state",
            ),
            _npm(
                "prosemirror-view",
                "prosemirror-view@1.34.3",
                upstream="ProseMirror/prosemirror-view",
            ),
            _npm(
                "prosemirror-commands",
                "prosemirror-commands@1.6.2",
                upstream="ProseMirror/prosemirror-commands",
            ),
            _npm(
                "prosemirror-markdown",
                "prosemirror-markdown@1.13.1",
                upstream="ProseMirror/prosemirror-markdown",
            ),
            _npm("redux-toolkit", "@reduxjs/toolkit@2.3.0", upstream="reduxjs/redux-toolkit"),
            _npm("web-vitals", "web-vitals@4.2.4", upstream="GoogleChrome/web-vitals"),
        ),
    ),
    "go": MinedLanguage(
        key="go",
        label="Go",
        suffixes=(".go",),
        cast_language=None,
        train=(
            _go(
                "logrus",
                "golang-github-sirupsen-logrus-dev",
                "1.9.0-1",
                "github.com/sirupsen/logrus",
                upstream="sirupsen/logrus",
            ),
            _go(
                "mux",
                "golang-github-gorilla-mux-dev",
                "1.8.0-1",
                "github.com/gorilla/mux",
                upstream="gorilla/mux",
            ),
            _go(
                "cli",
                "golang-github-urfave-cli-dev",
                "1.22.9-2",
                "github.com/urfave/cli",
                upstream="urfave/cli",
            ),
            _go(
                "pflag",
                "golang-github-spf13-pflag-dev",
                "1.0.6~git20210604-d5e0c0615ace-1",
                "github.com/spf13/pflag",
                upstream="spf13/pflag",
            ),
            _go(
                "toml",
                "golang-github-burntsushi-toml-dev",
                "1.2.0-2",
                "github.com/BurntSushi/toml",
                upstream="BurntSushi/toml",
            ),
            _go(
                "afero",
                "golang-github-spf13-afero-dev",
                "1.9.3-1",
                "github.com/spf13/afero",
                upstream="spf13/afero",
            ),
            _go(
                "mapstructure",
                "golang-github-mitchellh-mapstructure-dev",
                "1.5.0-2",
                "github.com/mitchellh/mapstructure",
                upstream="mitchellh/mapstructure",
            ),
        ),
        test=(
            _go(
                "dns",
                "golang-github-miekg-dns-dev",
                "1.1.50-2",
                "github.com/miekg/dns",
                upstream="miekg/dns",
            ),
            _go(
                "yaml",
                "golang-gopkg-yaml.v3-dev",
                "3.0.1-3",
                "gopkg.in/yaml.v3",
                upstream="go-yaml/yaml",
            ),
            _go(
                "go-cmp",
                "golang-github-google-go-cmp-dev",
                "0.5.9-1",
                "github.com/google/go-cmp",
                upstream="google/go-cmp",
            ),
            _go(
                "websocket",
                "golang-github-gorilla-websocket-dev",
                "1.5.0-2",
                "github.com/gorilla/websocket",
                upstream="gorilla/websocket",
            ),
            _go(
                "hcl",
                "golang-github-hashicorp-hcl-dev",
                "1.0.0-1.1",
                "github.com/hashicorp/hcl",
                upstream="hashicorp/hcl",
            ),
            _go(
                "gjson",
                "golang-github-tidwall-gjson-dev",
                "1.14.4-2",
                "github.com/tidwall/gjson",
                upstream="tidwall/gjson",
            ),
        ),
    ),
    "rust": MinedLanguage(
        key="rust",
        label="Rust",
        suffixes=(".rs",),
        cast_language=None,
        train=(
            _crate(
                "itertools",
                "librust-itertools-dev",
                "0.10.3-1",
                upstream="rust-itertools/itertools",
            ),
            _crate(
                "hashbrown", "librust-hashbrown-dev", "0.12.3-1", upstream="rust-lang/hashbrown"
            ),
            _crate("indexmap", "librust-indexmap-dev", "1.9.2-1", upstream="indexmap-rs/indexmap"),
            _crate("smallvec", "librust-smallvec-dev", "1.9.0-1", upstream="servo/rust-smallvec"),
            _crate("nom", "librust-nom-dev", "7.1.1-1", upstream="rust-bakery/nom"),
            _crate("rand", "librust-rand-dev", "0.8.5-1", upstream="rust-random/rand"),
            _crate("log", "librust-log-dev", "0.4.17-3", upstream="rust-lang/log"),
        ),
        test=(
            _crate(
                "regex-syntax", "librust-regex-syntax-dev", "0.6.27-1", upstream="rust-lang/regex"
            ),
            _crate("chrono", "librust-chrono-dev", "0.4.23-2", upstream="chronotope/chrono"),
            _crate("memchr", "librust-memchr-dev", "2.5.0-1", upstream="BurntSushi/memchr"),
            _crate("toml", "librust-toml-dev", "0.5.11-1", upstream="toml-rs/toml"),
            _crate(
                "base64", "librust-base64-dev", "0.13.0-1", upstream="marshallpierce/rust-base64"
            ),
        ),
    ),
    "php": MinedLanguage(
        key="php",
        label="PHP",
        suffixes=(".php",),
        cast_language=None,
        train=(
            _php(
                "commonmark",
                "php-league-commonmark",
                "2.3.9-1+deb12u1",
                upstream="thephpleague/commonmark",
            ),
            _php("monolog", "php-monolog", "2.9.1-1", upstream="Seldaek/monolog"),
            _php("psr7", "php-guzzlehttp-psr7", "2.4.5-1+deb12u1", upstream="guzzle/psr7"),
            _php(
                "collections",
                "php-doctrine-collections",
                "2.1.2-1",
                upstream="doctrine/collections",
            ),
            _php("inflector", "php-doctrine-inflector", "2.0.6-1", upstream="doctrine/inflector"),
            _php("brick-math", "php-brick-math", "0.10.0-1", upstream="brick/math"),
            _php("uuid", "php-ramsey-uuid", "4.6.0-1", upstream="ramsey/uuid"),
        ),
        test=(
            _php("twig", "php-twig", "3.5.1-1+deb12u3", upstream="twigphp/Twig"),
            _php("vobject", "php-sabre-vobject", "2.1.7-6.1", upstream="sabre-io/vobject"),
            _php("nette-utils", "php-nette-utils", "4.0.0-1", upstream="nette/utils"),
            _php("semver", "php-composer-semver", "3.3.2-1", upstream="composer/semver"),
            _php("guzzle", "php-guzzlehttp-guzzle", "7.4.5-1", upstream="guzzle/guzzle"),
            _php(
                "html5", "php-masterminds-html5", "2.7.6+dfsg-1", upstream="Masterminds/html5-php"
            ),
        ),
    ),
    "ruby": MinedLanguage(
        key="ruby",
        label="Ruby",
        suffixes=(".rb",),
        cast_language=None,
        train=(
            _gem("i18n", "ruby-i18n", "1.10.0-2", upstream="ruby-i18n/i18n"),
            _gem("addressable", "ruby-addressable", "2.8.1-1", upstream="sporkmonger/addressable"),
            _gem("tzinfo", "ruby-tzinfo", "2.0.5-1", upstream="tzinfo/tzinfo"),
            _gem("hashie", "ruby-hashie", "5.0.0-2", upstream="hashie/hashie"),
            _gem("liquid", "ruby-liquid", "5.4.0-3", upstream="Shopify/liquid"),
            _gem("rake", "rake", "13.0.6-3", upstream="ruby/rake"),
        ),
        test=(
            _gem(
                "concurrent-ruby",
                "ruby-concurrent",
                "1.1.6+dfsg-5",
                upstream="ruby-concurrency/concurrent-ruby",
            ),
            _gem("kramdown", "ruby-kramdown", "2.4.0-2", upstream="gettalong/kramdown"),
            _gem("net-ssh", "ruby-net-ssh", "1:7.0.1-1", upstream="net-ssh/net-ssh"),
            _gem("rubyzip", "ruby-zip", "2.3.2-1", upstream="rubyzip/rubyzip"),
            _gem("mustache", "ruby-mustache", "1.1.1-2", upstream="mustache/mustache"),
        ),
    ),
    "java": MinedLanguage(
        key="java",
        label="Java",
        suffixes=(".java",),
        cast_language="java",
        # Apache Commons components train, other projects test (commons-lang3, commons-text,
        # Gson, SnakeYAML... are too large or not served by the mirror: 404)
        train=(
            _source(
                "commons-io",
                "commons-io",
                "2.11.0-2",
                "*/src/main/java",
                upstream="apache/commons-io",
            ),
            _source(
                "commons-codec",
                "libcommons-codec-java",
                "1.15-1",
                "*/src/main/java",
                upstream="apache/commons-codec",
            ),
            _source(
                "commons-csv",
                "libcommons-csv-java",
                "1.9.0-1",
                "*/src/main/java",
                upstream="apache/commons-csv",
            ),
        ),
        test=(
            _source("jsoup", "jsoup", "1.15.3-1", "*/src/main/java", upstream="jhy/jsoup"),
            _source(
                "joda-time",
                "libjoda-time-java",
                "2.10.14-1",
                "*/src/main/java",
                upstream="JodaOrg/joda-time",
            ),
        ),
    ),
    # Debian's mirror here serves few C# .orig tarballs (taglib-sharp, cecil, mono-addins, nini,
    # xsp... answer 404); Mono's carries several independent libraries under mcs/class/.
    # (KeePass 2.47's KeePassLib documents mostly properties: 4,100 chunks for 100 questions)
    "csharp": MinedLanguage(
        key="csharp",
        label="C#",
        suffixes=(".cs",),
        cast_language="csharp",
        train=(
            _source(
                "ldap", "mono", _MONO, "*/mcs/class/Novell.Directory.Ldap", upstream="mono/mono"
            ),
            _source(
                "sharpziplib",
                "mono",
                _MONO,
                "*/mcs/class/ICSharpCode.SharpZipLib/ICSharpCode.*",
                upstream="mono/mono",
            ),
        ),
        test=(
            Package(
                "pythonnet",
                "pypi-sdist",
                "pythonnet==3.0.5",
                ("*/src/runtime",),
                upstream="pythonnet/pythonnet",
            ),
            _source(
                "rabbitmq", "mono", _MONO, "*/mcs/class/RabbitMQ.Client/src", upstream="mono/mono"
            ),
        ),
    ),
}
