/**
 * A response body already serialized to JSON (as text, or as its UTF-8 bytes), for read paths that
 * keep their presented body: `sendStored` writes it as is. Anything else that serializes it gets
 * the parsed value.
 */
export class JsonText {
  constructor(readonly text: string | Buffer) {}

  toJSON(): unknown {
    return JSON.parse(typeof this.text === 'string' ? this.text : this.text.toString('utf8'));
  }
}
