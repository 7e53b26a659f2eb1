"""Host tests for boot/mkova.py, the OVA step of `make images`: the archive
is in OVA order, the descriptor is well-formed OVF that references the disk
with its real size and capacity, the manifest's SHA-256 sums match, and the
disk holds exactly the raw image's bytes.  Also `make images SETTINGS=`:
the words land in \\clockprobe.cfg on the image's ESP.

Packs build/clockprobe.img (built by `make all` before the tests); about
one second.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import REPO  # noqa: E402

sys.path.insert(0, os.path.join(REPO, "boot"))
import mkova  # noqa: E402

IMG = os.path.join(REPO, "build", "clockprobe.img")
EFI = os.path.join(REPO, "build", "clockprobe.efi")
NS = {"ovf": "http://schemas.dmtf.org/ovf/envelope/1",
      "rasd": "http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/"
              "CIM_ResourceAllocationSettingData",
      "vssd": "http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/"
              "CIM_VirtualSystemSettingData",
      "vmw": "http://www.vmware.com/schema/ovf"}


def attr(el, name, ns="ovf"):
    return el.get("{%s}%s" % (NS[ns], name))


@unittest.skipUnless(os.path.exists(IMG) and shutil.which("qemu-img"),
                     "needs build/clockprobe.img (make all) and qemu-img")
class Ova(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="cp-ova-")
        cls.ova = os.path.join(cls.dir, "clockprobe.ova")
        mkova.build_ova(IMG, cls.ova)
        with tarfile.open(cls.ova) as tar:
            cls.formats = {m.name: tar.format for m in tar.getmembers()}
            cls.members = [(m.name, tar.extractfile(m).read())
                           for m in tar.getmembers()]
        cls.files = dict(cls.members)
        cls.root = ET.fromstring(cls.files["clockprobe.ovf"])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_archive_order_descriptor_manifest_disk(self):
        self.assertEqual([n for n, _ in self.members],
                         ["clockprobe.ovf", "clockprobe.mf",
                          "clockprobe-disk1.vmdk"])
        with open(self.ova, "rb") as f:
            head = f.read(512)
        self.assertEqual(head[257:263], b"ustar\x00")  # POSIX ustar header

    def test_descriptor_references_disk_with_its_size(self):
        self.assertEqual(self.root.tag, "{%s}Envelope" % NS["ovf"])
        files = self.root.findall("ovf:References/ovf:File", NS)
        self.assertEqual(len(files), 1)
        href, size = attr(files[0], "href"), int(attr(files[0], "size"))
        self.assertEqual(size, len(self.files[href]))
        disks = self.root.findall("ovf:DiskSection/ovf:Disk", NS)
        self.assertEqual(len(disks), 1)
        disk = disks[0]
        self.assertEqual(attr(disk, "fileRef"), attr(files[0], "id"))
        self.assertEqual(int(attr(disk, "capacity")), os.path.getsize(IMG))
        self.assertEqual(attr(disk, "capacityAllocationUnits"), "byte")
        self.assertTrue(attr(disk, "format").endswith("#streamOptimized"))

    def test_virtual_system_boots_efi_from_the_disk_with_serial_to_file(self):
        hw = self.root.find("ovf:VirtualSystem/ovf:VirtualHardwareSection",
                            NS)
        config = {attr(c, "key", "vmw"): attr(c, "value", "vmw")
                  for c in hw.findall("vmw:Config", NS)}
        self.assertEqual(config["firmware"], "efi")
        # vmw:Config keys are vSphere VirtualMachineConfigSpec properties
        # (ESXi's OVF import sets bootOptions.efiSecureBootEnabled from it);
        # .vmx keys such as uefi.secureBoot.enabled would be vmw:ExtraConfig
        self.assertEqual(config["bootOptions.efiSecureBootEnabled"], "false")
        self.assertNotIn("uefi.secureBoot.enabled", config)
        items = {}
        for item in hw.findall("ovf:Item", NS):
            kind = int(item.findtext("rasd:ResourceType", namespaces=NS))
            items.setdefault(kind, []).append(item)
        disk_id = attr(self.root.find("ovf:DiskSection/ovf:Disk", NS),
                       "diskId")
        (disk,) = items[17]
        self.assertEqual(disk.findtext("rasd:HostResource", namespaces=NS),
                         "ovf:/disk/" + disk_id)
        parent = disk.findtext("rasd:Parent", namespaces=NS)
        controllers = [i for i in items[20] if i.findtext(
            "rasd:InstanceID", namespaces=NS) == parent]
        self.assertEqual(len(controllers), 1)
        (serial,) = items[21]
        backing = {attr(c, "key", "vmw"): attr(c, "value", "vmw")
                   for c in serial.findall("vmw:Config", NS)}
        self.assertTrue(backing["backing.fileName"].endswith(".log"))
        self.assertNotIn(15, items)  # no CD drive for the firmware to try
        self.assertGreaterEqual(int(items[3][0].findtext(
            "rasd:VirtualQuantity", namespaces=NS)), 2)

    def test_manifest_sums_match(self):
        lines = self.files["clockprobe.mf"].decode("ascii").splitlines()
        sums = {}
        for line in lines:
            m = re.fullmatch(r"SHA256\(([^)]+)\)= ([0-9a-f]{64})", line)
            self.assertIsNotNone(m, line)
            sums[m.group(1)] = m.group(2)
        self.assertEqual(set(sums), {"clockprobe.ovf",
                                     "clockprobe-disk1.vmdk"})
        for name, digest in sums.items():
            self.assertEqual(hashlib.sha256(self.files[name]).hexdigest(),
                             digest, name)

    def test_disk_is_stream_optimized_copy_of_the_image(self):
        vmdk = os.path.join(self.dir, "disk.vmdk")
        with open(vmdk, "wb") as f:
            f.write(self.files["clockprobe-disk1.vmdk"])
        info = json.loads(subprocess.run(
            ["qemu-img", "info", "--output=json", vmdk], check=True,
            capture_output=True, text=True).stdout)
        self.assertEqual(info["format"], "vmdk")
        self.assertEqual(info["virtual-size"], os.path.getsize(IMG))
        self.assertEqual(info["format-specific"]["data"]["create-type"],
                         "streamOptimized")
        same = subprocess.run(["qemu-img", "compare", "-f", "raw", "-F",
                               "vmdk", IMG, vmdk], capture_output=True,
                              text=True)
        self.assertEqual(same.returncode, 0, same.stdout + same.stderr)


@unittest.skipUnless(os.path.exists(EFI) and shutil.which("mtype"),
                     "needs build/clockprobe.efi (make all) and mtools")
class ImageSettings(unittest.TestCase):
    def test_settings_are_written_to_the_esp(self):
        tmp = tempfile.mkdtemp(prefix="cp-settings-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        img = os.path.join(tmp, "disk.img")
        subprocess.run([sys.executable, os.path.join(REPO, "boot",
                                                     "mkmedia.py"),
                        "--efi", EFI, "--img", img, "--settings",
                        "wait=900 resend=30"], check=True,
                       capture_output=True)
        env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
        esp = "%s@@%d" % (img, 1024 * 1024)
        cfg = subprocess.run(["mtype", "-i", esp, "::/clockprobe.cfg"],
                             check=True, capture_output=True, env=env).stdout
        self.assertEqual(cfg, b"wait=900 resend=30\r\n")
        plain = os.path.join(tmp, "plain.img")
        subprocess.run([sys.executable, os.path.join(REPO, "boot",
                                                     "mkmedia.py"),
                        "--efi", EFI, "--img", plain], check=True,
                       capture_output=True)
        listing = subprocess.run(["mdir", "-b", "-i", "%s@@%d" % (
            plain, 1024 * 1024), "::/"], check=True, capture_output=True,
            env=env, text=True).stdout
        self.assertNotIn("clockprobe.cfg", listing.lower())


if __name__ == "__main__":
    unittest.main()
