#!/usr/bin/env python3
"""Packs the probe's raw disk image as an OVA for VMware (ESXi, Workstation,
Fusion) and other OVF importers.

ESXi cannot attach a streamOptimized .vmdk directly (that subformat is meant
for OVF import), so users expect an OVA: a tar whose first member is the OVF
descriptor, then the manifest, then the disk in the order the descriptor
references it (the OVF specification, DSP0243, asks for this order so that
an importer can read the archive as a stream, without seeking).

The virtual machine it describes has what the probe needs and nothing else:
EFI firmware with Secure Boot off (the probe is unsigned; see `make signed`),
the disk on a SATA (AHCI) controller that VMware's EFI firmware boots from,
no CD drive and no network (nothing for the firmware to try before the
disk), and COM1 writing to a file next to the VM (the full report is only on
the serial port; the screen shows the summary).
"""
import argparse
import hashlib
import io
import os
import subprocess
import tarfile
import tempfile
from xml.sax.saxutils import quoteattr, escape

OVF_NS = "http://schemas.dmtf.org/ovf/envelope/1"
STREAM_OPTIMIZED = ("http://www.vmware.com/interfaces/specifications/"
                    "vmdk.html#streamOptimized")
# vmx-13: ESXi 6.5, Workstation 14, Fusion 10 and later -- the oldest
# hardware version still supported by VMware with EFI + SATA boot.
HARDWARE_VERSION = "vmx-13"

DESCRIPTOR = """<?xml version="1.0" encoding="UTF-8"?>
<Envelope xmlns="http://schemas.dmtf.org/ovf/envelope/1"
          xmlns:ovf="http://schemas.dmtf.org/ovf/envelope/1"
          xmlns:rasd="http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_ResourceAllocationSettingData"
          xmlns:vssd="http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_VirtualSystemSettingData"
          xmlns:vmw="http://www.vmware.com/schema/ovf">
  <References>
    <File ovf:href={disk_file} ovf:id="file1" ovf:size="{disk_file_size}"/>
  </References>
  <DiskSection>
    <Info>The probe's boot disk: a GPT disk with one EFI system partition</Info>
    <Disk ovf:diskId="vmdisk1" ovf:fileRef="file1" ovf:capacity="{capacity}" ovf:capacityAllocationUnits="byte" ovf:format="{disk_format}"/>
  </DiskSection>
  <VirtualSystem ovf:id={name}>
    <Info>clockprobe: boots, measures the clock sources, reports on COM1, powers off</Info>
    <Name>{name_text}</Name>
    <OperatingSystemSection ovf:id="102" vmw:osType="otherGuest64">
      <Info>A UEFI application, no operating system</Info>
    </OperatingSystemSection>
    <VirtualHardwareSection>
      <Info>Virtual hardware requirements</Info>
      <System>
        <vssd:ElementName>Virtual Hardware Family</vssd:ElementName>
        <vssd:InstanceID>0</vssd:InstanceID>
        <vssd:VirtualSystemIdentifier>{name_text}</vssd:VirtualSystemIdentifier>
        <vssd:VirtualSystemType>{hardware}</vssd:VirtualSystemType>
      </System>
      <Item>
        <rasd:AllocationUnits>hertz * 10^6</rasd:AllocationUnits>
        <rasd:Description>Number of virtual CPUs (two or more: the cross-CPU TSC check needs a second CPU)</rasd:Description>
        <rasd:ElementName>{cpus} virtual CPU(s)</rasd:ElementName>
        <rasd:InstanceID>1</rasd:InstanceID>
        <rasd:ResourceType>3</rasd:ResourceType>
        <rasd:VirtualQuantity>{cpus}</rasd:VirtualQuantity>
      </Item>
      <Item>
        <rasd:AllocationUnits>byte * 2^20</rasd:AllocationUnits>
        <rasd:Description>Memory size</rasd:Description>
        <rasd:ElementName>{mem_mib} MB of memory</rasd:ElementName>
        <rasd:InstanceID>2</rasd:InstanceID>
        <rasd:ResourceType>4</rasd:ResourceType>
        <rasd:VirtualQuantity>{mem_mib}</rasd:VirtualQuantity>
      </Item>
      <Item>
        <rasd:Address>0</rasd:Address>
        <rasd:Description>SATA controller</rasd:Description>
        <rasd:ElementName>SATA Controller 0</rasd:ElementName>
        <rasd:InstanceID>3</rasd:InstanceID>
        <rasd:ResourceSubType>vmware.sata.ahci</rasd:ResourceSubType>
        <rasd:ResourceType>20</rasd:ResourceType>
      </Item>
      <Item>
        <rasd:AddressOnParent>0</rasd:AddressOnParent>
        <rasd:ElementName>Hard Disk 1</rasd:ElementName>
        <rasd:HostResource>ovf:/disk/vmdisk1</rasd:HostResource>
        <rasd:InstanceID>4</rasd:InstanceID>
        <rasd:Parent>3</rasd:Parent>
        <rasd:ResourceType>17</rasd:ResourceType>
      </Item>
      <Item ovf:required="false">
        <rasd:AutomaticAllocation>true</rasd:AutomaticAllocation>
        <rasd:Description>COM1 to a file in the VM's folder: the full framed report</rasd:Description>
        <rasd:ElementName>Serial port 1</rasd:ElementName>
        <rasd:InstanceID>5</rasd:InstanceID>
        <rasd:ResourceSubType>vmware.serialport.file</rasd:ResourceSubType>
        <rasd:ResourceType>21</rasd:ResourceType>
        <vmw:Config ovf:required="false" vmw:key="backing.fileName" vmw:value={serial_file}/>
        <vmw:Config ovf:required="false" vmw:key="yieldOnPoll" vmw:value="true"/>
      </Item>
      <vmw:Config ovf:required="false" vmw:key="firmware" vmw:value="efi"/>
      <vmw:Config ovf:required="false" vmw:key="bootOptions.efiSecureBootEnabled" vmw:value="false"/>
      <vmw:Config ovf:required="false" vmw:key="tools.syncTimeWithHost" vmw:value="false"/>
    </VirtualHardwareSection>
  </VirtualSystem>
</Envelope>
"""


def descriptor(name, disk_file, disk_file_size, capacity, cpus, mem_mib,
               serial_file):
    """The OVF descriptor text (values escaped for XML)."""
    return DESCRIPTOR.format(
        name=quoteattr(name), name_text=escape(name),
        disk_file=quoteattr(disk_file), disk_file_size=int(disk_file_size),
        capacity=int(capacity), disk_format=STREAM_OPTIMIZED,
        hardware=HARDWARE_VERSION, cpus=int(cpus), mem_mib=int(mem_mib),
        serial_file=quoteattr(serial_file))


def manifest(members):
    """OVF manifest lines "SHA256(name)= hex" for (name, bytes) pairs."""
    return "".join("SHA256(%s)= %s\n" % (n, hashlib.sha256(d).hexdigest())
                   for n, d in members).encode("ascii")


def stream_optimized_vmdk(raw_path, vmdk_path):
    subprocess.run(["qemu-img", "convert", "-f", "raw", "-O", "vmdk", "-o",
                    "subformat=streamOptimized", raw_path, vmdk_path],
                   check=True)


def write_ova(ova_path, members, mtime):
    """A ustar archive of (name, bytes) in the given order."""
    tmp = ova_path + ".tmp"
    with tarfile.open(tmp, "w", format=tarfile.USTAR_FORMAT) as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = mtime
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    os.replace(tmp, ova_path)


def build_ova(img, ova, name="clockprobe", cpus=2, mem_mib=256):
    base = os.path.splitext(os.path.basename(ova))[0]
    disk_name = base + "-disk1.vmdk"
    with tempfile.TemporaryDirectory(prefix="mkova-") as tmp:
        vmdk_path = os.path.join(tmp, disk_name)
        stream_optimized_vmdk(img, vmdk_path)
        with open(vmdk_path, "rb") as f:
            disk = f.read()
    ovf = descriptor(name, disk_name, len(disk), os.path.getsize(img), cpus,
                     mem_mib, name + "-serial.log").encode("utf-8")
    ovf_name, mf_name = base + ".ovf", base + ".mf"
    mf = manifest([(ovf_name, ovf), (disk_name, disk)])
    # Reproducible archives: the time comes from SOURCE_DATE_EPOCH when set.
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", "0"))
    write_ova(ova, [(ovf_name, ovf), (mf_name, mf), (disk_name, disk)], mtime)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--img", required=True, help="raw disk image (clockprobe.img)")
    p.add_argument("--ova", required=True, help="output .ova")
    p.add_argument("--name", default="clockprobe")
    p.add_argument("--cpus", type=int, default=2)
    p.add_argument("--mem-mib", type=int, default=256)
    a = p.parse_args()
    build_ova(a.img, a.ova, a.name, a.cpus, a.mem_mib)


if __name__ == "__main__":
    main()
