#!/usr/bin/python3
# -*- coding: utf-8 -*-
# The fleet playbook's check of benchcore_workdir_parent (tasks/workdir.yml):
# every directory from / down to it, and every symlink met on the way, is
# one that no other user of the host can change. Read-only (runs in --check).

DOCUMENTATION = r'''
module: bc_trusted_dir
short_description: a directory no other user can change, checked from / down
description:
  - Walks I(path) one name at a time from C(/), without following a symlink
    blindly. Every directory on the way (the last included) must belong to
    root or the remote user and must not be writable by its group or by
    others, unless it has the sticky bit (like C(/tmp)), where only a name's
    owner may rename or remove it. A symlink on the way must itself belong to
    root or the remote user (in a sticky C(/tmp) anyone may plant one); its
    target is then walked the same way.
  - Fails naming the first name that does not hold and why. Changes nothing.
options:
  path:
    description: the directory (C(~) is the remote user's home)
    required: true
    type: path
'''

RETURN = r'''
realpath:
  description: the directory the walk arrived at (symlinks resolved)
  type: str
'''

import os
import stat

from ansible.module_utils.basic import AnsibleModule


def describe(st, uid):
    """why a directory's or link's owner and mode are not trusted, or None"""
    if st.st_uid not in (0, uid):
        return 'belongs to uid %d, neither the remote user (%d) nor root' % (st.st_uid, uid)
    if stat.S_ISDIR(st.st_mode) and st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not st.st_mode & stat.S_ISVTX:
        return 'is writable by %s (mode %04o) and not sticky' % (
            'others' if st.st_mode & stat.S_IWOTH else 'its group', stat.S_IMODE(st.st_mode))
    return None


def walk(path, uid):
    """(realpath, None) or (name, reason)"""
    if not path.startswith('/'):
        return path, 'is not an absolute path'
    cur = '/'
    st = os.lstat(cur)
    why = describe(st, uid)
    if why:
        return cur, why
    todo = [c for c in path.split('/') if c]
    hops = 0
    while todo:
        name = todo.pop(0)
        if name == '.':
            continue
        if name == '..':
            cur = os.path.dirname(cur)	# cur has no symlink in it
            continue
        nxt = os.path.join(cur, name)
        try:
            st = os.lstat(nxt)
        except OSError as e:
            return nxt, 'cannot be read (%s)' % e.strerror
        why = describe(st, uid)
        if why:
            return nxt, ('is a symlink that ' if stat.S_ISLNK(st.st_mode) else '') + why
        if stat.S_ISLNK(st.st_mode):
            hops += 1
            if hops > 40:
                return nxt, 'leads through more than 40 symlinks'
            target = os.readlink(nxt)
            todo = [c for c in target.split('/') if c] + todo
            if target.startswith('/'):
                cur = '/'
            continue
        if not stat.S_ISDIR(st.st_mode):
            return nxt, 'is not a directory'
        cur = nxt
    return cur, None


def main():
    module = AnsibleModule(argument_spec=dict(path=dict(type='path', required=True)),
                           supports_check_mode=True)
    path = module.params['path']
    name, why = walk(path, os.getuid())
    if why:
        module.fail_json(msg='%s: %s' % (name, why), bad=name, reason=why)
    module.exit_json(changed=False, realpath=name)


if __name__ == '__main__':
    main()
