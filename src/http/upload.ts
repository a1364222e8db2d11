/** Multipart file fields: the part of a formidable File the handlers use, and its yup field. */
import * as yup from 'yup';

export interface UploadedFile {
  filepath: string;
  originalFilename?: string | null;
  mimetype?: string | null;
  size: number;
}

export const isUploadedFile = (v: unknown): v is UploadedFile =>
  !!v && typeof v === 'object' && typeof (v as UploadedFile).filepath === 'string' && typeof (v as UploadedFile).size === 'number';

/** A multipart file field (documented as binary); a text field sent in its place is a 400 naming the field. Add `.required(message)` where it is. */
export const fileField = () =>
  yup
    .mixed<UploadedFile>()
    .meta({ openapi: { type: 'string', format: 'binary' } })
    .test('is-file', '${path} must be a file upload (multipart/form-data), not a text field.', (v) => v === undefined || isUploadedFile(v));
