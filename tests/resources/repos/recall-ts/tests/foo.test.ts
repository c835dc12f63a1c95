import { parse } from '../src/index.js';
it('parses', () => {});
