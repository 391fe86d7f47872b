import { z } from 'zod';
import { isDisplayText } from '../../domain/text.js';

const NAME_MESSAGE = 'must be a non-empty string of at most 200 characters';

/** A human-given name (apps, destination labels, rules): one line of 1–200 characters. */
export const displayNameSchema = z
  .string({ error: NAME_MESSAGE })
  .trim()
  .min(1, NAME_MESSAGE)
  .max(200, NAME_MESSAGE)
  .refine(isDisplayText, 'must be one line of text without control characters')
  .describe('Display name, 1–200 characters; surrounding spaces are dropped');
