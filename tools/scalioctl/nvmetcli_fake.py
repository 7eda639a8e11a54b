#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# nvmetcli_fake.py NVME_PY ROOT FILE: run nvmetcli's own restore (the
# Root().restore() of its nvmet/nvme.py, at path NVME_PY) of FILE on a
# fake configfs tree ROOT/nvmet of plain files, for test.sh.  Only what a
# fake tree lacks is filled in: configfs creates attribute files and
# default groups by itself, plain directories do not.
import importlib.util
import json
import os
import sys


def main():
    spec = importlib.util.spec_from_file_location("nvme", sys.argv[1])
    n = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(n)
    n.CFSNode.configfs_dir = os.path.join(sys.argv[2], "nvmet")
    defaults = {
        n.Subsystem: ["namespaces", "allowed_hosts"],
        n.Port: ["subsystems", "referrals", "ana_groups", "ana_groups/1"],
    }
    create = n.CFSNode._create_in_cfs

    def create_default_groups(self, mode):
        create(self, mode)
        for cls, dirs in defaults.items():
            if isinstance(self, cls):
                for d in dirs:
                    os.makedirs(os.path.join(self.path, d), exist_ok=True)

    def write(path, value):
        with open(path, "w", encoding="utf-8") as f:
            f.write(f"{value}\n")

    def set_attr(self, group, attribute, value):
        write(f"{self.path}/{group}_{attribute}", value)

    def set_enable(self, value):
        # As nvmetcli, which refuses an enable it did not read: only
        # namespaces and referrals read theirs (configfs has the file).
        if self._enable is None and not isinstance(self, (n.Namespace,
                                                          n.Referral)):
            raise n.CFSError(f"Cannot enable {self.path}")
        write(f"{self.path}/enable", value)

    def setter(name, skip_zero=False):
        def f(self, value):
            if not (skip_zero and not int(value)):
                write(f"{self.path}/{name}", value)
        return f

    n.CFSNode._create_in_cfs = create_default_groups
    n.CFSNode.set_attr = set_attr
    n.CFSNode.set_enable = set_enable
    # nvmetcli writes these only to a file the kernel has.
    n.Namespace.set_grpid = setter("ana_grpid", skip_zero=True)
    n.Passthru.set_clear_ids = setter("clear_ids")
    n.Passthru.set_admin_timeout = setter("admin_timeout")
    n.Passthru.set_io_timeout = setter("io_timeout")
    pt_init = n.Passthru.__init__

    def pt_init_default_group(self, subsystem):
        os.makedirs(f"{subsystem.path}/passthru", exist_ok=True)
        pt_init(self, subsystem)

    n.Passthru.__init__ = pt_init_default_group
    with open(sys.argv[3], encoding="utf-8") as f:
        errors = n.Root().restore(json.load(f), abort_on_error=True)
    if errors:
        print("\n".join(errors), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
