/**
 * A response body already serialized to JSON, for read paths that keep their presented text:
 * `sendStored` writes the text as is. Anything else that serializes it gets the parsed value.
 */
export class JsonText {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}
