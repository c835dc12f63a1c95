import { add } from "../src/add";
