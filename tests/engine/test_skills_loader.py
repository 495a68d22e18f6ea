"""SKILL.md parsing and discovery limits, without an engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from codex_lsp.engine.skills.frontmatter import FrontmatterError, split_frontmatter
from codex_lsp.engine.skills.loader import (
    MAX_DEPTH,
    find_skill_files,
    parse_skill_file,
    skill_roots,
)


def test_frontmatter_subset():
    text = (
        "---\n"
        "# a comment\n"
        "name: 'it''s'\n"
        'description: "Use when: the user asks \\"why\\"" # trailing comment\n'
        "url: https://example.com/a#b\n"
        "metadata:\n"
        "  short-description: Short one\n"
        "  nested:\n"
        "    deep: yes\n"
        "tags:\n"
        "  - one\n"
        "  - 'two'\n"
        "literal: |\n"
        "  line one\n"
        "    indented\n"
        "after: done\n"
        "---\n"
        "# Body\n"
    )
    fields, body = split_frontmatter(text)
    assert fields == {
        "name": "it's",
        "description": 'Use when: the user asks "why"',
        "url": "https://example.com/a#b",
        "metadata": {"short-description": "Short one", "nested": {"deep": "yes"}},
        "tags": ["one", "two"],
        "literal": "line one\n  indented",
        "after": "done",
    }
    assert body == "# Body"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("# no frontmatter\n", "missing YAML frontmatter"),
        ("---\nname: x\n", "not closed"),
        ("---\nname: x\njust words\n---\n", "line 3: expected `key: value`"),
        ("---\nname: x\n   description: y\n---\n", "line 3: unexpected indentation"),
        ('---\ndescription: "open\n---\n', "line 2: unterminated double-quoted"),
    ],
)
def test_frontmatter_errors_name_the_line(text, message):
    with pytest.raises(FrontmatterError, match=message):
        split_frontmatter(text)


def _skill(tmp_path: Path, frontmatter: str, directory: str = "my-skill") -> Path:
    path = tmp_path / directory / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{frontmatter}---\nbody\n")
    return path


def test_name_defaults_to_directory_and_values_become_one_line(tmp_path):
    skill = parse_skill_file(_skill(tmp_path, "description: |\n  two\n  lines\n"), "user")
    assert (skill.name, skill.description) == ("my-skill", "two lines")


@pytest.mark.parametrize(
    ("frontmatter", "message"),
    [
        ("name: x\n", "`description` is required"),
        ("description: '   '\n", "`description` is required"),
        (f"name: {'n' * 65}\ndescription: d\n", "name is 65 characters; the limit is 64"),
        (f"description: {'d' * 1025}\n", "description is 1025 characters; the limit is 1024"),
        ("description: d\nmetadata: flat\n", "`metadata` must be a mapping"),
        ("description:\n  - a\n  - b\n", "`description` must be a single string"),
    ],
)
def test_invalid_skills_say_why(tmp_path, frontmatter, message):
    with pytest.raises(ValueError, match=message):
        parse_skill_file(_skill(tmp_path, frontmatter), "repo")


def test_scan_depth_hidden_dirs_and_skill_dirs(tmp_path):
    root = tmp_path / "skills"
    shallow = _skill(root, "description: d\n", "a")
    _skill(root, "description: nested inside a skill\n", "a/examples/inner")
    _skill(root, "description: hidden\n", ".hidden/h")
    deep_dir = "/".join(f"d{i}" for i in range(MAX_DEPTH - 1)) + "/ok"
    too_deep_dir = "/".join(f"e{i}" for i in range(MAX_DEPTH)) + "/far"
    ok = _skill(root, "description: d\n", deep_dir)
    _skill(root, "description: d\n", too_deep_dir)
    (root / "loop").symlink_to(root)
    assert sorted(find_skill_files(root)) == sorted([shallow, ok])


def test_repo_roots_run_from_project_root_down_to_cwd(tmp_path):
    repo = tmp_path / "repo"
    cwd = repo / "a" / "b"
    cwd.mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    roots = skill_roots(cwd, codex_home=tmp_path / "ch", home=tmp_path / "h")
    repo_roots = [r.path for r in roots if r.scope == "repo"]
    assert repo_roots == [
        d / sub / "skills" for d in (cwd, repo / "a", repo) for sub in (".codex", ".agents")
    ]
    assert [(r.path, r.scope) for r in roots if r.scope != "repo"] == [
        (tmp_path / "ch" / "skills", "user"),
        (tmp_path / "h" / ".agents" / "skills", "user"),
        (tmp_path / "ch" / "skills" / ".system", "system"),
        (Path("/etc/codex/skills"), "admin"),
    ]
