import type { FileCohort } from './cohorts'
import type { ProjectAuth } from './http'
import { postForm } from './upload'

/** POST /uba/api/cohort/byfile (spec 4.5): computed before the answer, which counts the matched values. */
export function createFileCohort(auth: ProjectAuth, input: { name: string; property: string; file: File }): Promise<FileCohort> {
  const form = new FormData()
  form.append('name', input.name)
  form.append('property', input.property)
  form.append('file', input.file, input.file.name)
  return postForm<FileCohort>(auth, '/uba/api/cohort/byfile', form)
}
