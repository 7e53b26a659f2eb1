#!/usr/bin/env python3
"""Signs the probe with your own key, for machines whose Secure Boot cannot
be turned off (`make signed`).

Firmware with Secure Boot on starts only images signed by a key in its
signature database (db), or, through shim, in the Machine Owner Key list.
The probe is not signed by anyone that firmware trusts out of the box, so
the way in is a key of your own: this signs clockprobe.efi with it (Debian's
sbsigntool), checks the signature (sbverify), builds the boot media from the
signed file, and leaves the certificate for enrolling in the two forms the
enrolling tools read: DER (db.cer: MokManager, mokutil, most firmware setup
screens) and an EFI signature list (db.esl: KeyTool, efi-updatevar, AWS's
uefivars) -- the DER copy also on the disk image's ESP, so that firmware
setup can enroll it from the stick itself.

Without --key/--cert a key pair is made once with openssl and kept in the
output folder: the key you enroll must stay the one you sign with, so it is
reused on every later run rather than replaced.
"""
import argparse
import os
import struct
import subprocess
import sys
import uuid

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mkmedia  # noqa: E402

KEY_NAME, CERT_NAME, DER_NAME, ESL_NAME = "db.key", "db.crt", "db.cer", "db.esl"
# EFI_CERT_X509_GUID (UEFI specification, "EFI_SIGNATURE_LIST"): the entry
# holds one DER certificate.
EFI_CERT_X509_GUID = uuid.UUID("a5c059a1-94e4-4aa7-87b5-ab155c2bf072")
# SignatureOwner of the entries made here; any fixed GUID will do, it only
# tells whose entry it is when the db is listed.
OWNER_GUID = uuid.UUID("6b1e7c2a-3f5d-4c8e-9a1b-c10c4b0be0db")
# Where mkmedia puts the ESP inside the GPT disk.
ESP_OFFSET = mkmedia.MIB
ESP_CERT_NAME = "clockprobe-db.cer"


def run(*argv, quiet=False):
    """Run argv; quiet: keep its chatter (openssl's key-generation dots)
    unless it fails."""
    if not quiet:
        subprocess.run(argv, check=True)
        return
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        sys.stderr.write(p.stdout.decode("utf-8", "replace"))
        raise subprocess.CalledProcessError(p.returncode, argv)


def make_key(out, subject):
    """A self-signed RSA-2048/SHA-256 certificate: what UEFI db entries and
    MOK accept everywhere (larger RSA keys are refused by some firmware)."""
    key, cert = os.path.join(out, KEY_NAME), os.path.join(out, CERT_NAME)
    run("openssl", "req", "-new", "-x509", "-newkey", "rsa:2048", "-sha256",
        "-nodes", "-days", "3650", "-subj", "/CN=%s/" % subject,
        "-keyout", key, "-out", cert, quiet=True)
    os.chmod(key, 0o600)
    return key, cert


def sign(efi, key, cert, out):
    signed = os.path.join(out, os.path.basename(efi))
    run("sbsign", "--key", key, "--cert", cert, "--output", signed, efi)
    run("sbverify", "--cert", cert, signed)
    return signed


def der_cert(cert, out):
    der = os.path.join(out, DER_NAME)
    run("openssl", "x509", "-in", cert, "-outform", "DER", "-out", der)
    return der


def signature_list(der_bytes, owner=OWNER_GUID):
    """One EFI_SIGNATURE_LIST holding one X.509 certificate: SignatureType,
    SignatureListSize, SignatureHeaderSize (0), SignatureSize, then one
    EFI_SIGNATURE_DATA (owner GUID + the DER bytes)."""
    entry = owner.bytes_le + der_bytes
    header = EFI_CERT_X509_GUID.bytes_le + struct.pack(
        "<III", 28 + len(entry), 0, len(entry))
    return header + entry


def esl_cert(der, out):
    esl = os.path.join(out, ESL_NAME)
    with open(der, "rb") as f, open(esl, "wb") as g:
        g.write(signature_list(f.read()))
    return esl


def media(signed_efi, der, out, settings=None):
    img = os.path.join(out, "clockprobe.img")
    iso = os.path.join(out, "clockprobe.iso")
    run(sys.executable, os.path.join(os.path.dirname(__file__), "mkmedia.py"),
        "--efi", signed_efi, "--img", img, "--iso", iso,
        *(["--settings", settings] if settings else []))
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    subprocess.run(["mcopy", "-i", "%s@@%d" % (img, ESP_OFFSET), der,
                    "::/" + ESP_CERT_NAME], check=True, env=env)
    return img, iso


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--efi", required=True, help="the unsigned clockprobe.efi")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--key", help="PEM private key (default: made once in --out)")
    p.add_argument("--cert", help="PEM certificate of --key")
    p.add_argument("--subject", default="clockprobe signing key",
                   help="common name of a key made here")
    p.add_argument("--settings", help="words for \\clockprobe.cfg on the disk")
    p.add_argument("--no-media", action="store_true",
                   help="sign the .efi only, no disk/CD image")
    a = p.parse_args()
    if bool(a.key) != bool(a.cert):
        p.error("give both --key and --cert, or neither")
    os.makedirs(a.out, exist_ok=True)
    key, cert = a.key, a.cert
    if not key:
        key, cert = (os.path.join(a.out, n) for n in (KEY_NAME, CERT_NAME))
        if not (os.path.exists(key) and os.path.exists(cert)):
            key, cert = make_key(a.out, a.subject)
    signed = sign(a.efi, key, cert, a.out)
    der = der_cert(cert, a.out)
    made = [signed, der, esl_cert(der, a.out)]
    if not a.no_media:
        made += media(signed, der, a.out, a.settings)
    print("signed with %s; enroll %s" % (cert, der))
    for path in made:
        print("  " + path)


if __name__ == "__main__":
    main()
