// PLACEHOLDER — owned by the emulator-people helper; replaced wholesale.
export interface PeopleWorkspace {
  seed: number;
}

export function generatePeople(seed: number): PeopleWorkspace {
  return { seed };
}

export function describePeople(people: PeopleWorkspace): Record<string, unknown> {
  return { seed: people.seed };
}
