import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { displayCommand, splitShellWords } from '../shared/shellScript';

describe('displayCommand', () => {
  it('shows the script of a login shell once, unquoted', () => {
    assert.equal(displayCommand(`/bin/bash -lc 'grep -n "TODO" src/*.py'`), 'grep -n "TODO" src/*.py');
    assert.equal(displayCommand(`/usr/bin/zsh -c 'echo it'"'"'s'`), "echo it's");
    assert.equal(displayCommand(`bash -l -c 'ls'`), 'ls');
  });

  it('leaves other commands as they are', () => {
    assert.equal(displayCommand(`ls -la 'my dir'`), `ls -la 'my dir'`);
    assert.equal(displayCommand(`/tmp/python -c 'print(1)'`), `/tmp/python -c 'print(1)'`);
    assert.equal(displayCommand(`bash -x -c 'ls'`), `bash -x -c 'ls'`);
    assert.equal(displayCommand(`bash -lc 'unclosed`), `bash -lc 'unclosed`);
  });

  it('splits words as a POSIX shell does', () => {
    assert.deepEqual(splitShellWords(`a "b \\"c\\"" d\\ e ''`), ['a', 'b "c"', 'd e', '']);
  });
});
