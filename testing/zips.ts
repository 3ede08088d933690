import yazl from 'yazl';

/** The bytes of a zip holding `members` (name, content) in order, deflated unless `compress: false`. */
export async function zipBytes(members: [string, string | Buffer][], o: { compress?: boolean } = {}): Promise<Buffer> {
  const z = new yazl.ZipFile();
  for (const [name, body] of members) z.addBuffer(Buffer.isBuffer(body) ? body : Buffer.from(body), name, { compress: o.compress ?? true });
  z.end();
  const chunks: Buffer[] = [];
  for await (const c of z.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/**
 * `zip` with the uncompressed size its headers (local and central) declare for `member` set to
 * `declared`, as a hostile archive lies: its data, CRC-32 and compressed size stay as they were.
 */
export function withDeclaredSize(zip: Buffer, member: string, declared: number): Buffer {
  const out = Buffer.from(zip);
  let patched = 0;
  for (let i = 0; i + 46 <= out.length; i++) {
    const sig = out.readUInt32LE(i);
    // Local file header: name length at 26, name at 30, uncompressed size at 22.
    if (sig === 0x04034b50 && out.toString('latin1', i + 30, i + 30 + out.readUInt16LE(i + 26)) === member) {
      out.writeUInt32LE(declared, i + 22);
      patched++;
    }
    // Central directory header: name length at 28, name at 46, uncompressed size at 24.
    if (sig === 0x02014b50 && out.toString('latin1', i + 46, i + 46 + out.readUInt16LE(i + 28)) === member) {
      out.writeUInt32LE(declared, i + 24);
      patched++;
    }
  }
  if (patched !== 2) throw new Error(`withDeclaredSize: found ${patched} headers of ${member}, expected 2`);
  return out;
}
